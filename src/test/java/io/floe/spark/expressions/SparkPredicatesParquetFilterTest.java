package io.floe.spark.expressions;

import static io.floe.spark.expressions.V2.and;
import static io.floe.spark.expressions.V2.not;
import static io.floe.spark.expressions.V2.or;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.apache.iceberg.Files;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.parquet.ParquetDictionaryRowGroupFilter;
import org.apache.iceberg.parquet.ParquetMetricsRowGroupFilter;
import org.apache.parquet.column.page.DictionaryPageReadStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Floe's readers hand the scan filter to Iceberg's Parquet reader, which skips row groups by their
 * statistics and dictionaries. Neither filter may skip a row group that holds a row Spark selects.
 */
class SparkPredicatesParquetFilterTest {

  private static final int COPIES = 20;

  @TempDir static Path dir;

  private static List<Record> rows;
  private static ParquetFileReader reader;
  private static MessageType fileSchema;
  private static List<BlockMetaData> rowGroups;
  private static List<DictionaryPageReadStore> dictionaries;

  /**
   * Writes every row {@value #COPIES} times in a row group of its own: the statistics then describe
   * one value, and the copies make the writer keep each column dictionary-encoded, so the
   * dictionary filter is exercised too.
   */
  @BeforeAll
  static void writeEachRowInARowGroupOfItsOwn() throws IOException {
    rows = SampleTable.rows(40);
    File file = dir.resolve("rows.parquet").toFile();
    try (FileAppender<Record> appender =
        Parquet.write(Files.localOutput(file))
            .schema(SampleTable.SCHEMA)
            .createWriterFunc(GenericParquetWriter::create)
            .set(TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, "1")
            .set(TableProperties.PARQUET_ROW_GROUP_CHECK_MIN_RECORD_COUNT, String.valueOf(COPIES))
            .set(TableProperties.PARQUET_ROW_GROUP_CHECK_MAX_RECORD_COUNT, String.valueOf(COPIES))
            .build()) {
      for (Record row : rows) {
        for (int copy = 0; copy < COPIES; copy += 1) {
          appender.add(row);
        }
      }
    }
    reader = ParquetFileReader.open(new LocalInputFile(file.toPath()));
    fileSchema = reader.getFooter().getFileMetaData().getSchema();
    rowGroups = reader.getRowGroups();
    dictionaries = new ArrayList<>();
    for (BlockMetaData rowGroup : rowGroups) {
      dictionaries.add(reader.getDictionaryReader(rowGroup));
    }
    assertThat(rowGroups).hasSameSizeAs(rows).allMatch(group -> group.getRowCount() == COPIES);
  }

  @AfterAll
  static void closeReader() throws IOException {
    reader.close();
  }

  @Test
  void rowGroupFiltersNeverSkipARowGroupHoldingASelectedRow() {
    List<String> failures = new ArrayList<>();
    for (Predicate predicate : predicates()) {
      Optional<Expression> converted = SparkPredicates.convert(predicate, SampleTable.SCHEMA, true);
      if (converted.isEmpty()) {
        failures.add("not converted: " + V2.describe(predicate));
        continue;
      }
      ParquetMetricsRowGroupFilter metrics =
          new ParquetMetricsRowGroupFilter(SampleTable.SCHEMA, converted.get(), true);
      ParquetDictionaryRowGroupFilter dictionary =
          new ParquetDictionaryRowGroupFilter(SampleTable.SCHEMA, converted.get(), true);
      for (int g = 0; g < rowGroups.size(); g += 1) {
        if (!SparkSemantics.selects(predicate, rows.get(g))) {
          continue;
        }
        if (!metrics.shouldRead(fileSchema, rowGroups.get(g))) {
          failures.add(skipped(predicate, converted.get(), "statistics", g));
        }
        if (!dictionary.shouldRead(fileSchema, rowGroups.get(g), dictionaries.get(g))) {
          failures.add(skipped(predicate, converted.get(), "dictionaries", g));
        }
      }
    }
    assertThat(failures.subList(0, Math.min(25, failures.size())))
        .as("%d failures, first ones", failures.size())
        .isEmpty();
  }

  private static String skipped(Predicate predicate, Expression converted, String by, int group) {
    return V2.describe(predicate) + " -> " + converted + ": " + by + " skip " + rows.get(group);
  }

  private static List<Predicate> predicates() {
    List<Predicate> leaves = PredicateCases.convertibleLeaves();
    List<Predicate> predicates = new ArrayList<>();
    for (Predicate leaf : leaves) {
      predicates.add(leaf);
      predicates.add(not(leaf));
    }
    Random random = new Random(17);
    for (int k = 0; k < 100; k += 1) {
      Predicate left = leaves.get(random.nextInt(leaves.size()));
      Predicate right = leaves.get(random.nextInt(leaves.size()));
      predicates.add(or(left, not(right)));
      predicates.add(not(and(left, right)));
    }
    return predicates;
  }
}
