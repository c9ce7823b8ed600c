package io.floe.spark.read.plan.manifest;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.avro.file.DataFileStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The manifest metrics reader decodes, for the columns asked, exactly the record counts, value and
 * null counts and bounds Iceberg's own manifest reader decodes, through partition values of every
 * kind Iceberg encodes in its own way (fixed, uuid, decimals, binary, float, timestamps), so the
 * pruner decides on the same metrics Iceberg plans with.
 */
class EntryMetricsReaderTest {
  private static final Schema SCHEMA =
      new Schema(
          optional(1, "id", Types.LongType.get()),
          optional(2, "fx", Types.FixedType.ofLength(3)),
          optional(3, "u", Types.UUIDType.get()),
          optional(4, "big", Types.DecimalType.of(38, 10)),
          optional(5, "small", Types.DecimalType.of(9, 2)),
          optional(6, "b", Types.BinaryType.get()),
          optional(7, "f", Types.FloatType.get()),
          optional(8, "ts", Types.TimestampType.withZone()),
          optional(9, "s", Types.StringType.get()));
  private static final PartitionSpec SPEC =
      PartitionSpec.builderFor(SCHEMA)
          .identity("fx")
          .identity("u")
          .identity("big")
          .identity("small")
          .identity("b")
          .identity("f")
          .identity("ts")
          .identity("s")
          .bucket("id", 4)
          .build();

  @TempDir Path warehouse;

  @Test
  void decodesTheMetricsIcebergDecodesAndPrunesByThem() throws IOException {
    Table table =
        new HadoopTables(new Configuration())
            .create(
                SCHEMA,
                SPEC,
                Map.of(TableProperties.FORMAT_VERSION, "2"),
                warehouse.resolve("t").toString());
    for (int commit = 0; commit < 3; commit++) {
      AppendFiles append = table.newFastAppend();
      for (int file = 0; file < 4; file++) {
        append.appendFile(dataFile(commit * 1000L + file * 100, file));
      }
      append.commit();
    }
    List<ManifestFile> manifests = table.currentSnapshot().dataManifests(table.io());
    assertThat(manifests).hasSize(3);

    for (ManifestFile manifest : manifests) {
      List<String> expected = new ArrayList<>();
      try (ManifestReader<DataFile> files =
          ManifestFiles.read(manifest, table.io(), table.specs())
              .select(List.of("*"))) {
        files.forEach(file -> expected.add(metrics(file)));
      }
      List<String> decoded = new ArrayList<>();
      EntryMetricsReader reader = new EntryMetricsReader(new int[] {1, 9});
      try (InputStream in = table.io().newInputFile(manifest).newStream();
          DataFileStream<EntryMetrics> entries = new DataFileStream<>(in, reader)) {
        assertThat(reader.understood()).isTrue();
        while (entries.hasNext()) {
          EntryMetrics entry = entries.next();
          assertThat(entry.live()).isTrue();
          decoded.add(metrics(entry));
        }
      }
      assertThat(decoded).hasSize(4).isEqualTo(expected);
    }

    ManifestPruner nothing =
        new ManifestPruner(table.specs(), Expressions.equal("id", -1L), true);
    ManifestPruner second =
        new ManifestPruner(table.specs(), Expressions.equal("id", 1210L), true);
    assertThat(manifests)
        .noneMatch(manifest -> nothing.mayMatch(manifest, table.io().newInputFile(manifest)));
    assertThat(
            manifests.stream()
                .filter(manifest -> second.mayMatch(manifest, table.io().newInputFile(manifest)))
                .toList())
        .hasSize(1);
  }

  private static String metrics(DataFile file) {
    return file.recordCount()
        + " values=" + asked(file.valueCounts())
        + " nulls=" + asked(file.nullValueCounts())
        + " nans=" + asked(file.nanValueCounts())
        + " lower=" + bounds(file.lowerBounds())
        + " upper=" + bounds(file.upperBounds());
  }

  /** The entries of the columns the reader was asked for (id and s). */
  private static Map<Integer, Long> asked(Map<Integer, Long> counts) {
    Map<Integer, Long> asked = new TreeMap<>();
    if (counts != null) {
      counts.forEach(
          (id, count) -> {
            if (id == 1 || id == 9) {
              asked.put(id, count);
            }
          });
    }
    return asked;
  }

  private static String bounds(Map<Integer, ByteBuffer> bounds) {
    if (bounds == null) {
      return "null";
    }
    return new TreeMap<>(
            Map.of(
                1, Conversions.fromByteBuffer(Types.LongType.get(), bounds.get(1)),
                9, Conversions.fromByteBuffer(Types.StringType.get(), bounds.get(9))))
        .toString();
  }

  private static DataFile dataFile(long firstId, int variant) {
    PartitionData partition = new PartitionData(SPEC.partitionType());
    partition.set(0, ByteBuffer.wrap(new byte[] {(byte) variant, -1, 0}));
    partition.set(1, UUID.nameUUIDFromBytes(new byte[] {(byte) variant}));
    partition.set(2, new BigDecimal("-12345678901234.0123456789").add(BigDecimal.valueOf(variant)));
    partition.set(3, new BigDecimal("-1.05"));
    partition.set(4, ByteBuffer.wrap(new byte[variant]));
    partition.set(5, variant == 1 ? Float.NaN : 1.5f * variant);
    partition.set(6, 1_709_251_200_000_000L + variant);
    partition.set(7, variant == 2 ? null : "part-" + variant);
    partition.set(8, variant % 4);
    long rows = 100;
    Metrics metrics =
        new Metrics(
            rows,
            Map.of(1, 800L, 9, 900L),
            Map.of(1, rows, 9, rows),
            Map.of(1, (long) variant, 9, 0L),
            Map.of(7, 0L),
            Map.of(
                1, Conversions.toByteBuffer(Types.LongType.get(), firstId),
                9, Conversions.toByteBuffer(Types.StringType.get(), "a" + firstId)),
            Map.of(
                1, Conversions.toByteBuffer(Types.LongType.get(), firstId + 99),
                9, Conversions.toByteBuffer(Types.StringType.get(), "z" + firstId)));
    return DataFiles.builder(SPEC)
        .withPath("file:/data/" + firstId + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(4096)
        .withPartition(partition)
        .withMetrics(metrics)
        .build();
  }
}
