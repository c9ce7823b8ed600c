package io.floe.spark.bench;

import io.floe.spark.write.exec.DataWriterSettings;
import io.floe.spark.write.exec.FloeDataWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SerializableTable;
import org.apache.iceberg.Table;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Measures the heap a fanout writer task holds per open data file: one task writes {@code rows}
 * rows into each of {@code files} partitions, interleaved, with the benchmark table's eight columns
 * (plus the int partition column), then the live heap after a full GC is compared with the heap
 * before the task, while every file is still open. Not a test; run it by hand:
 * {@code java -cp <test classpath> io.floe.spark.bench.OpenFileMemory [files] [rows per file]
 * [row group bytes] [page bytes]}. Prints one line per run: files, rows per file, bytes per open file.
 */
public final class OpenFileMemory {
  private static final Schema SCHEMA =
      SyntheticSchema.with(Types.NestedField.optional(9, "p", Types.IntegerType.get()));

  private OpenFileMemory() {}

  public static void main(String[] args) throws Exception {
    int files = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    int rowsPerFile = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
    Map<String, String> properties = new HashMap<>();
    if (args.length > 2) {
      properties.put("write.parquet.row-group-size-bytes", args[2]);
    }
    if (args.length > 3) {
      properties.put("write.parquet.page-size-bytes", args[3]);
    }
    Path warehouse = Files.createTempDirectory("open-file-memory");
    Table table =
        SerializableTable.copyOf(
            new HadoopTables(new Configuration())
                .create(
                    SCHEMA,
                    PartitionSpec.builderFor(SCHEMA).identity("p").build(),
                    properties,
                    warehouse.resolve("t").toString()));
    // a first task warms up classes and buffers that every task shares
    write(table, files, 10, false);
    write(table, files, rowsPerFile, true);
  }

  private static void write(Table table, int files, int rowsPerFile, boolean report)
      throws Exception {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    long before = liveHeap(memory);
    FloeDataWriter writer =
        new FloeDataWriter(
            new DataWriterSettings(table, table.spec().specId(), Long.MAX_VALUE, true, false, Map.of(),
                files),
            0,
            0,
            written -> new WriterCommitMessage() {});
    long id = 0;
    for (int round = 0; round < rowsPerFile; round += 1) {
      for (int p = 0; p < files; p += 1) {
        writer.write(row(id, p));
        id += 1;
      }
    }
    long open = liveHeap(memory);
    writer.commit();
    writer.close();
    if (report) {
      System.out.printf(
          "files=%d rowsPerFile=%d bytesPerOpenFile=%d%n",
          files, rowsPerFile, (open - before) / files);
    }
  }

  private static InternalRow row(long id, int p) {
    return new GenericInternalRow(
        new Object[] {
          id,
          id % 1000,
          id * 0.5,
          (id % 97) * 1.25,
          UTF8String.fromString("value-" + id),
          UTF8String.fromString("kind-" + (id % 8)),
          (int) (19_700 + id % 30),
          1_700_000_000_000_000L + id * 1_000_000L,
          p
        });
  }

  private static long liveHeap(MemoryMXBean memory) throws InterruptedException {
    for (int i = 0; i < 3; i += 1) {
      System.gc();
      Thread.sleep(50);
    }
    return memory.getHeapMemoryUsage().getUsed();
  }
}
