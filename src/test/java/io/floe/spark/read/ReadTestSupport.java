package io.floe.spark.read;

import io.floe.spark.FloeCatalog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.parquet.Parquet;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Helpers shared by the read tests: the Iceberg table behind a Floe table and its data files, rows
 * read straight from a Parquet file, position deletes written with Iceberg's own writer, the {@link
 * FloeScan} a query planned, and a canonical form of values so that Spark rows and Iceberg records
 * compare.
 */
public final class ReadTestSupport {
  private ReadTestSupport() {}

  /** The Iceberg table {@code floe.<name>} as the Floe catalog loads it now. */
  public static Table icebergTable(SparkSession spark, String name) {
    FloeCatalog catalog =
        (FloeCatalog) spark.sessionState().catalogManager().catalog("floe");
    return catalog.icebergCatalog().loadTable(TableIdentifier.parse(name));
  }

  /** The data files of the table's current snapshot, sorted by location. */
  public static List<DataFile> dataFiles(Table table) {
    table.refresh();
    List<DataFile> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(task -> files.add(task.file()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    files.sort((a, b) -> a.location().compareTo(b.location()));
    return files;
  }

  /**
   * The rows of one data file, read straight from Parquet in file order, so that the i-th record is
   * the row at position i.
   */
  public static List<Record> fileRecords(Table table, DataFile file) {
    Schema schema = table.schema();
    List<Record> records = new ArrayList<>();
    try (CloseableIterable<Record> rows =
        Parquet.read(table.io().newInputFile(file.location()))
            .project(schema)
            .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
            .build()) {
      rows.forEach(records::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return records;
  }

  /** Writes a position delete file, with Iceberg's generic writer, for positions of one data file. */
  public static DeleteFile positionDeletes(Table table, DataFile file, List<Long> positions) {
    PartitionSpec spec = table.specs().get(file.specId());
    GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table).build();
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PARQUET).build();
    PositionDeleteWriter<Record> writer =
        writers.newPositionDeleteWriter(
            files.newOutputFile(spec, file.partition()), spec, file.partition());
    try (PositionDeleteWriter<Record> closing = writer) {
      PositionDelete<Record> delete = PositionDelete.create();
      for (long pos : positions) {
        closing.write(delete.set(file.location(), pos));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDeleteFile();
  }

  /** The Floe scans in a query's physical plan (before adaptive execution rewrites it). */
  public static List<FloeScan> floeScans(Dataset<Row> df) {
    SparkPlan plan = df.queryExecution().sparkPlan();
    List<FloeScan> scans = new ArrayList<>();
    for (SparkPlan leaf : CollectionConverters.asJava(plan.collectLeaves())) {
      if (leaf instanceof BatchScanExec batchScan && batchScan.scan() instanceof FloeScan scan) {
        scans.add(scan);
      }
    }
    return scans;
  }

  /** The only Floe scan of a query. */
  public static FloeScan floeScan(Dataset<Row> df) {
    List<FloeScan> scans = floeScans(df);
    if (scans.size() != 1) {
      throw new AssertionError("Expected one Floe scan but found " + scans + " in " + df.queryExecution());
    }
    return scans.get(0);
  }

  /** Rows as canonical strings, sorted: two results are equal as multisets when these are equal. */
  public static List<String> canonicalRows(List<Row> rows) {
    return rows.stream().map(ReadTestSupport::canonical).map(String::valueOf).sorted().toList();
  }

  /** Records as canonical strings, sorted; see {@link #canonicalRows}. */
  public static List<String> canonicalRecords(Iterable<? extends StructLike> records, int width) {
    List<String> result = new ArrayList<>();
    for (StructLike record : records) {
      List<Object> values = new ArrayList<>(width);
      for (int i = 0; i < width; i += 1) {
        values.add(canonical(record.get(i, Object.class)));
      }
      result.add(String.valueOf(values));
    }
    return result.stream().sorted().toList();
  }

  /**
   * A value in a form both engines agree on: instants for timestamps with time zone, hex for bytes,
   * plain strings for UUIDs, lists for rows, records, arrays and Scala sequences, sorted maps.
   */
  public static Object canonical(Object value) {
    if (value == null) {
      return null;
    } else if (value instanceof Row row) {
      List<Object> values = new ArrayList<>(row.length());
      for (int i = 0; i < row.length(); i += 1) {
        values.add(canonical(row.get(i)));
      }
      return values;
    } else if (value instanceof StructLike struct) {
      List<Object> values = new ArrayList<>(struct.size());
      for (int i = 0; i < struct.size(); i += 1) {
        values.add(canonical(struct.get(i, Object.class)));
      }
      return values;
    } else if (value instanceof scala.collection.Map<?, ?> map) {
      return canonical(CollectionConverters.asJava(map));
    } else if (value instanceof scala.collection.Iterable<?> seq) {
      return canonical(CollectionConverters.asJava(seq));
    } else if (value instanceof Map<?, ?> map) {
      Map<String, Object> sorted = new TreeMap<>();
      map.forEach((k, v) -> sorted.put(String.valueOf(canonical(k)), canonical(v)));
      return sorted;
    } else if (value instanceof Iterable<?> iterable) {
      List<Object> values = new ArrayList<>();
      iterable.forEach(item -> values.add(canonical(item)));
      return values;
    } else if (value instanceof byte[] bytes) {
      return "0x" + HexFormat.of().formatHex(bytes);
    } else if (value instanceof ByteBuffer buffer) {
      byte[] bytes = new byte[buffer.remaining()];
      buffer.duplicate().get(bytes);
      return canonical(bytes);
    } else if (value instanceof OffsetDateTime timestamp) {
      return timestamp.toInstant();
    } else if (value instanceof java.sql.Timestamp timestamp) {
      return timestamp.toInstant();
    } else if (value instanceof java.sql.Date date) {
      return date.toLocalDate();
    } else if (value instanceof UUID uuid) {
      return uuid.toString();
    } else if (value instanceof BigDecimal decimal) {
      return decimal.toPlainString();
    } else if (value instanceof CharSequence chars) {
      return chars.toString();
    } else if (value instanceof Instant
        || value instanceof LocalDate
        || value instanceof LocalDateTime
        || value instanceof Number
        || value instanceof Boolean) {
      return value;
    }
    throw new IllegalArgumentException("No canonical form for " + value.getClass() + ": " + value);
  }
}
