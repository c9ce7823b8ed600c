package io.floe.spark.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.write.exec.DataWriterSettings;
import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SerializableTable;
import org.apache.iceberg.Table;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writer factory equals another exactly when both write the same files: every setting a task
 * writes with, and the commit id, take part in equality.
 */
class FloeDataWriterFactoryTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "category", Types.StringType.get()));

  @TempDir static Path warehouse;
  private static Table table;

  @BeforeAll
  static void createTable() {
    table =
        SerializableTable.copyOf(
            new HadoopTables(new Configuration())
                .create(
                    SCHEMA,
                    PartitionSpec.builderFor(SCHEMA).identity("category").build(),
                    warehouse.resolve("t").toString()));
  }

  @Test
  void factoriesOfTheSameSettingsAndCommitIdAreEqual() {
    FloeDataWriterFactory factory = factory(1024, false, true, "c1");

    assertThat(factory).isEqualTo(factory(1024, false, true, "c1")).hasSameHashCodeAs(factory(1024, false, true, "c1"));
    assertThat(factory.settings().schema().sameSchema(table.schema())).isTrue();
    assertThat(factory.settings().spec()).isEqualTo(table.spec());
  }

  @Test
  void everySettingAndTheCommitIdTakePartInEquality() {
    FloeDataWriterFactory factory = factory(1024, false, true, "c1");

    assertThat(factory)
        .isNotEqualTo(factory(2048, false, true, "c1"))
        .isNotEqualTo(factory(1024, true, true, "c1"))
        .isNotEqualTo(factory(1024, false, false, "c1"))
        .isNotEqualTo(factory(1024, false, true, "c2"));
  }

  @Test
  void descriptionNamesTheTableAndSettings() {
    assertThat(factory(1024, true, false, "c1").toString())
        .startsWith("FloeDataWriterFactory{table=" + table.name() + ", io=")
        .contains("targetFileSizeBytes=1024", "fanout=true", "commitId=c1")
        .doesNotContain("sortOrderId");
  }

  private static FloeDataWriterFactory factory(
      long targetFileSizeBytes, boolean fanout, boolean recordSortOrder, String commitId) {
    return new FloeDataWriterFactory(
        new DataWriterSettings(table, table.spec().specId(), targetFileSizeBytes, fanout, recordSortOrder,
            Map.of()),
        commitId);
  }
}
