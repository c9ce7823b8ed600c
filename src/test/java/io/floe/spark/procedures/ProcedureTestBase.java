package io.floe.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.catalog.CatalogTestBase;
import io.floe.spark.catalog.TestCatalog;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Procedure tests on the catalog {@code floe} (a hadoop catalog unless a subclass says otherwise):
 * helpers to call a procedure, build small tables and compare an output schema column by column
 * with the official runtime's.
 */
abstract class ProcedureTestBase extends CatalogTestBase {
  @Override
  protected TestCatalog testCatalog() {
    return TestCatalog.HADOOP;
  }

  /** Runs {@code CALL floe.system.<text>} and returns its result. */
  static Dataset<Row> call(String text, Object... args) {
    return spark.sql("CALL " + CATALOG + ".system." + String.format(text, args));
  }

  /** Creates {@code floe.<name>} (id BIGINT, data STRING) afresh, in its namespace. */
  static void createTable(String name) {
    String namespace = name.substring(0, name.lastIndexOf('.'));
    sql("CREATE NAMESPACE IF NOT EXISTS %s.%s", CATALOG, namespace);
    sql("DROP TABLE IF EXISTS %s.%s", CATALOG, name);
    sql("CREATE TABLE %s.%s (id BIGINT, data STRING) USING iceberg", CATALOG, name);
  }

  /** Appends one row per id, in one snapshot, and returns that snapshot's id. */
  static long append(String name, long... ids) {
    String values =
        java.util.Arrays.stream(ids)
            .mapToObj(id -> "(" + id + ", 'v" + id + "')")
            .collect(Collectors.joining(", "));
    sql("INSERT INTO %s.%s VALUES %s", CATALOG, name, values);
    return icebergTable(name).currentSnapshot().snapshotId();
  }

  /** The ids the table holds now, read with Spark, sorted. */
  static List<Long> ids(String name) {
    return sql("SELECT id FROM %s.%s ORDER BY id", CATALOG, name).stream()
        .map(row -> row.getLong(0))
        .collect(Collectors.toList());
  }

  /** One expected output column. */
  static StructField column(String name, DataType type, boolean nullable) {
    return new StructField(name, type, nullable, Metadata.empty());
  }

  /** Asserts a schema column by column: names, types and nullability, in order. */
  static void assertSchema(StructType actual, StructField... expected) {
    assertThat(actual.fields()).hasSize(expected.length);
    for (int i = 0; i < expected.length; i++) {
      StructField field = actual.fields()[i];
      assertThat(field.name()).as("column %d name", i).isEqualTo(expected[i].name());
      assertThat(field.dataType())
          .as("column %s type", field.name())
          .isEqualTo(expected[i].dataType());
      assertThat(field.nullable())
          .as("column %s nullable", field.name())
          .isEqualTo(expected[i].nullable());
    }
  }
}
