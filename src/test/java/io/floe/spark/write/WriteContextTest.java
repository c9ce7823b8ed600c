package io.floe.spark.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.commit.TableLoader;
import io.floe.spark.commit.WriteMode;
import java.nio.file.Path;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SerializableTable;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A write's context takes its table's name, schema and spec from the table it carries. */
class WriteContextTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "category", Types.StringType.get()));

  @TempDir static Path warehouse;
  private static Table table;

  @BeforeAll
  static void createTable() {
    Table created =
        new HadoopTables(new Configuration())
            .create(
                SCHEMA,
                PartitionSpec.builderFor(SCHEMA).identity("category").build(),
                warehouse.resolve("t").toString());
    table = SerializableTable.copyOf(created);
  }

  @Test
  void nameSchemaAndSpecAreTheTables() {
    WriteContext context = context(WriteMode.APPEND, null, "c1", Map.of());

    assertThat(context.tableName()).isEqualTo(table.name());
    assertThat(context.schema().sameSchema(table.schema())).isTrue();
    assertThat(context.spec()).isEqualTo(table.spec());
    assertThat(context.callerChosenCommitId()).isFalse();
  }

  @Test
  void theCommitIdIsTheCallersWhenTheOptionsCarryOne() {
    WriteContext context = context(WriteMode.APPEND, null, "mine", Map.of("commit-id", "mine"));

    assertThat(context.callerChosenCommitId()).isTrue();
    assertThat(context.toString()).contains("commitId=mine (caller-chosen)");
    assertThatThrownBy(() -> context(WriteMode.APPEND, null, "other", Map.of("commit-id", "mine")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot plan a write to " + table.name() + ": commit id other is not the caller's commit-id mine");
  }

  @Test
  void onlyAnOverwriteByFilterCarriesAFilter() {
    assertThat(context(WriteMode.OVERWRITE_BY_FILTER, Expressions.alwaysTrue(), "c1", Map.of()).overwriteFilter())
        .isEqualTo(Expressions.alwaysTrue());
    assertThatThrownBy(() -> context(WriteMode.OVERWRITE_BY_FILTER, null, "c1", Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot plan a write to " + table.name() + ": mode OVERWRITE_BY_FILTER needs an overwrite filter");
    assertThatThrownBy(() -> context(WriteMode.APPEND, Expressions.alwaysTrue(), "c1", Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot plan a write to " + table.name() + ": mode APPEND takes no overwrite filter");
  }

  @Test
  void equalContextsComeFromEqualValues() {
    assertThat(context(WriteMode.APPEND, null, "c1", Map.of()))
        .isEqualTo(context(WriteMode.APPEND, null, "c1", Map.of()))
        .hasSameHashCodeAs(context(WriteMode.APPEND, null, "c1", Map.of()))
        .isNotEqualTo(context(WriteMode.APPEND, null, "c2", Map.of()))
        .isNotEqualTo(context(WriteMode.REPLACE_PARTITIONS, null, "c1", Map.of()));
  }

  private static WriteContext context(
      WriteMode mode, org.apache.iceberg.expressions.Expression filter, String commitId, Map<String, String> options) {
    return new WriteContext(
        new FixedLoader(), table, mode, filter, commitId, null,
        WriteOptions.resolve(table.name(), options, null, table.properties()));
  }

  /** Loads nothing: these contexts are never committed. */
  private static final class FixedLoader implements TableLoader {
    @Override
    public String name() {
      return "fixed";
    }

    @Override
    public Table load() {
      throw new UnsupportedOperationException("Cannot load: the test never commits");
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof FixedLoader;
    }

    @Override
    public int hashCode() {
      return 1;
    }
  }
}
