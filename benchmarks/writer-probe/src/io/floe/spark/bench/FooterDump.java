package io.floe.spark.bench;

import java.io.File;
import java.util.*;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.page.*;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.*;
import org.apache.parquet.hadoop.util.HadoopInputFile;

/**
 * Prints the layout of the Parquet files under a folder (recursively), to compare what two engines
 * wrote for the same statement: files, rows, row groups, writer, and per column the number of data
 * pages, dictionary pages, pages still dictionary-encoded and pages plain (a column that fell back
 * from its dictionary has only plain pages), dictionary bytes and entries, and compressed and
 * uncompressed sizes. With {@code -v}, every column chunk and the value count and encoding of each
 * of its pages. System properties {@code since} and {@code until} (epoch milliseconds) keep only the
 * files last modified in that window, e.g. the timed window a {@code DML-SUMMARY} line gives.
 */
public final class FooterDump {
  private FooterDump() {}

  public static void main(String[] args) throws Exception {
    List<File> files = new ArrayList<>();
    collect(new File(args[0]), files);
    Collections.sort(files);
    boolean verbose = Arrays.asList(args).contains("-v");
    long since = Long.parseLong(System.getProperty("since", "0"));
    long until = Long.parseLong(System.getProperty("until", "" + Long.MAX_VALUE));
    files.removeIf(f -> f.lastModified() < since || f.lastModified() > until);
    Configuration conf = new Configuration();
    long totalRows = 0, totalBytes = 0, totalRowGroups = 0;
    Map<String, long[]> perColumn = new TreeMap<>(); // pages, dictPages, dictEncodedPages, plainPages, dictBytes, dataBytesCompressed, dataBytesUncompressed, dictValuesInDictPages
    Set<String> createdBy = new TreeSet<>();
    Set<String> kv = new TreeSet<>();
    List<Long> rowsPerFile = new ArrayList<>();
    for (File f : files) {
      try (ParquetFileReader reader =
          ParquetFileReader.open(HadoopInputFile.fromPath(new Path(f.toURI()), conf))) {
        ParquetMetadata footer = reader.getFooter();
        createdBy.add(footer.getFileMetaData().getCreatedBy());
        for (Map.Entry<String, String> e : footer.getFileMetaData().getKeyValueMetaData().entrySet()) {
          kv.add(e.getKey() + "=" + (e.getValue().length() > 80 ? e.getValue().substring(0, 80) + "..." : e.getValue()));
        }
        long fileRows = 0;
        totalBytes += f.length();
        for (BlockMetaData block : footer.getBlocks()) {
          totalRowGroups++;
          fileRows += block.getRowCount();
          for (ColumnChunkMetaData c : block.getColumns()) {
            long[] a = perColumn.computeIfAbsent(c.getPath().toDotString(), k -> new long[10]);
            a[5] += c.getTotalSize();
            a[6] += c.getTotalUncompressedSize();

            if (verbose) {
              System.out.println(f.getName() + " rg rows=" + block.getRowCount() + " " + c.getPath().toDotString()
                  + " enc=" + c.getEncodings() + " codec=" + c.getCodec() + " size=" + c.getTotalSize()
                  + " dictOffset=" + c.getDictionaryPageOffset() + " stats=" + (c.getStatistics() == null ? "-" : c.getStatistics().isEmpty() ? "empty" : "yes")
                  + " colIndex=" + (c.getColumnIndexReference() != null) + " offIndex=" + (c.getOffsetIndexReference() != null)
                  + " bloom=" + (c.getBloomFilterOffset() >= 0));
            }
          }
        }
        totalRows += fileRows;
        rowsPerFile.add(fileRows);
        // pages
        PageReadStore rg;
        while ((rg = reader.readNextRowGroup()) != null) {
          for (ColumnDescriptor desc : footer.getFileMetaData().getSchema().getColumns()) {
            long[] a = perColumn.get(String.join(".", desc.getPath()));
            PageReader pages = rg.getPageReader(desc);
            DictionaryPage dict = pages.readDictionaryPage();
            if (dict != null) {
              a[1]++;
              a[4] += dict.getUncompressedSize();
              a[7] += dict.getDictionarySize();
            }
            DataPage page;
            StringBuilder layout = verbose ? new StringBuilder() : null;
            while ((page = pages.readPage()) != null) {
              a[0]++;
              org.apache.parquet.column.Encoding enc =
                  page instanceof DataPageV1 ? ((DataPageV1) page).getValueEncoding() : ((DataPageV2) page).getDataEncoding();
              if (enc.usesDictionary()) a[2]++; else a[3]++;
              a[8] += page.getValueCount();
              if (enc.usesDictionary()) a[9] += page.getValueCount();
              if (layout != null) layout.append(' ').append(page.getValueCount()).append(enc.usesDictionary() ? "d" : "p");
            }
            if (layout != null) System.out.println(f.getName() + " " + String.join(".", desc.getPath()) + " pages:" + layout);
          }
        }
      }
    }
    Collections.sort(rowsPerFile);
    System.out.println("files=" + files.size() + " rows=" + totalRows + " bytes=" + totalBytes + " rowGroups=" + totalRowGroups
        + " rowsPerFile min/median/max=" + rowsPerFile.get(0) + "/" + rowsPerFile.get(rowsPerFile.size() / 2) + "/" + rowsPerFile.get(rowsPerFile.size() - 1));
    System.out.println("createdBy=" + createdBy);
    System.out.println("kv=" + kv);
    System.out.printf("%-6s %6s %5s %6s %6s %10s %10s %10s %9s %9s%n", "column", "pages", "dicts", "dPages", "pPages", "dictBytes", "compBytes", "uncBytes", "dictEnt", "dictVals");
    for (Map.Entry<String, long[]> e : perColumn.entrySet()) {
      long[] a = e.getValue();
      System.out.printf("%-6s %6d %5d %6d %6d %10d %10d %10d %9d %9d%n", e.getKey(), a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[9]);
    }
  }

  private static void collect(File dir, List<File> out) {
    File[] children = dir.listFiles();
    if (children == null) return;
    for (File c : children) {
      if (c.isDirectory()) collect(c, out);
      else if (c.getName().endsWith(".parquet")) out.add(c);
    }
  }
}
