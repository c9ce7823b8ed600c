package io.floe.spark.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.FloeCatalog;
import io.floe.spark.SparkTestBase;
import io.floe.spark.commit.CommitRequest;
import io.floe.spark.commit.Committer;
import io.floe.spark.commit.WriteMode;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Schema merge on write ({@code merge-schema} / {@code mergeSchema} on a table with {@code
 * write.spark.accept-any-schema}): new columns and widened types land in the same commit as the
 * data; an incompatible change fails naming the column and changes nothing. Expected rows are the
 * same rows in temporary views.
 */
class MergeSchemaTest extends SparkTestBase {
  private static final String TABLE = "floe.db.merged";

  @BeforeEach
  void createTable() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
    sql(
        "CREATE TABLE %s (id INT NOT NULL, price FLOAT, amount DECIMAL(5, 2), data STRING) USING iceberg"
            + " TBLPROPERTIES ('write.spark.accept-any-schema' = 'true')",
        TABLE);
    spark
        .sql(
            "SELECT CAST(id AS INT) AS id, CAST(id / 4 AS FLOAT) AS price,"
                + " CAST(id / 8 AS DECIMAL(5, 2)) AS amount, CONCAT('d', CAST(id AS STRING)) AS data"
                + " FROM range(0, 10)")
        .createOrReplaceTempView("old_rows");
    sql("INSERT INTO %s SELECT * FROM old_rows", TABLE);
  }

  @AfterEach
  void dropTable() {
    sql("DROP TABLE IF EXISTS %s", TABLE);
    spark.conf().unset("spark.floe.write.merge-schema");
  }

  private static Table icebergTable() {
    FloeCatalog catalog = (FloeCatalog) spark.sessionState().catalogManager().catalog("floe");
    return catalog.icebergCatalog().loadTable(TableIdentifier.of("db", "merged"));
  }

  private static TableMetadata metadata(Table table) {
    return ((HasTableOperations) table).operations().current();
  }

  private static List<Row> rows(String query) {
    return spark.sql(query).collectAsList();
  }

  @Test
  void newColumnsAndWidenedTypesCommitWithTheData() throws Exception {
    Table before = icebergTable();
    int metadataFiles = metadata(before).previousFiles().size();
    Dataset<Row> data =
        spark.sql(
            "SELECT CAST(id AS BIGINT) AS id, CAST(id / 4 AS DOUBLE) AS price,"
                + " CAST(id / 8 AS DECIMAL(9, 2)) AS amount, CONCAT('d', CAST(id AS STRING)) AS data,"
                + " CAST(id * 10 AS INT) AS extra FROM range(10, 20)");
    data.createOrReplaceTempView("new_rows");

    data.writeTo(TABLE).option("merge-schema", "true").append();

    Table after = icebergTable();
    assertThat(after.schema().findType("id")).isEqualTo(Types.LongType.get());
    assertThat(after.schema().findType("price")).isEqualTo(Types.DoubleType.get());
    assertThat(after.schema().findType("amount")).isEqualTo(Types.DecimalType.of(9, 2));
    assertThat(after.schema().findField("extra").isOptional()).isTrue();
    assertThat(after.schema().findField("id").isRequired()).isTrue();
    // one metadata commit: the schema and the snapshot together
    assertThat(metadata(after).previousFiles()).hasSize(metadataFiles + 1);
    Snapshot appended = after.currentSnapshot();
    assertThat(appended.parentId()).isEqualTo(before.currentSnapshot().snapshotId());
    assertThat(appended.schemaId()).isEqualTo(after.schema().schemaId());

    assertThat(rows("SELECT * FROM " + TABLE + " ORDER BY id"))
        .containsExactlyElementsOf(
            rows(
                "SELECT CAST(id AS BIGINT), CAST(price AS DOUBLE), CAST(amount AS DECIMAL(9, 2)), data,"
                    + " CAST(NULL AS INT) FROM old_rows UNION ALL SELECT * FROM new_rows ORDER BY id"));
  }

  @Test
  void theCamelCaseOptionAndTheSessionConfTurnItOnToo() throws Exception {
    Dataset<Row> camel =
        spark.sql("SELECT CAST(id AS INT) AS id, CAST(NULL AS FLOAT) AS price,"
            + " CAST(NULL AS DECIMAL(5, 2)) AS amount, 'x' AS data, 'a' AS tag FROM range(10, 12)");
    camel.writeTo(TABLE).option("mergeSchema", "true").append();
    assertThat(icebergTable().schema().findField("tag")).isNotNull();

    spark.conf().set("spark.floe.write.merge-schema", "true");
    sql("INSERT INTO %s SELECT id, price, amount, data, tag, TRUE AS flag FROM %s WHERE id = 10", TABLE, TABLE);
    assertThat(icebergTable().schema().findType("flag")).isEqualTo(Types.BooleanType.get());
    spark.conf().unset("spark.floe.write.merge-schema");

    // the official runtime's session conf
    spark.conf().set("spark.sql.iceberg.merge-schema", "true");
    try {
      sql("INSERT INTO %s SELECT id, price, amount, data, tag, flag, 'z' AS note FROM %s WHERE id = 11", TABLE, TABLE);
    } finally {
      spark.conf().unset("spark.sql.iceberg.merge-schema");
    }
    assertThat(icebergTable().schema().findType("note")).isEqualTo(Types.StringType.get());
    assertThat(rows("SELECT id, tag, flag FROM " + TABLE + " WHERE id >= 10 ORDER BY id, flag"))
        .containsExactlyElementsOf(
            rows("SELECT * FROM VALUES (10, 'a', NULL), (10, 'a', TRUE), (11, 'a', NULL), (11, 'a', NULL)"
                + " AS v(id, tag, flag) ORDER BY id, flag"));
  }

  @Test
  void anIncompatibleChangeFailsNamingTheColumnAndChangesNothing() {
    Table before = icebergTable();
    Dataset<Row> data =
        spark.sql("SELECT CAST(id AS INT) AS id, CAST(id AS FLOAT) AS price,"
            + " CAST(id AS DECIMAL(5, 2)) AS amount, CAST(id AS INT) AS data, 1 AS extra FROM range(0, 3)");

    assertThatThrownBy(() -> data.writeTo(TABLE).option("merge-schema", "true").append())
        .hasMessageContaining("Cannot write to")
        .hasMessageContaining("merge-schema")
        .hasMessageContaining("data")
        .hasMessageContaining("string -> int");
    Dataset<Row> narrower =
        spark.sql("SELECT CAST(id AS INT) AS id, CAST(id AS FLOAT) AS price,"
            + " CAST(id AS DECIMAL(5, 1)) AS amount, 'x' AS data FROM range(0, 3)");
    assertThatThrownBy(() -> narrower.writeTo(TABLE).option("merge-schema", "true").append())
        .hasMessageContaining("amount");
    Dataset<Row> reordered =
        spark.sql("SELECT 'x' AS data, CAST(id AS INT) AS id, CAST(id AS FLOAT) AS price,"
            + " CAST(id AS DECIMAL(5, 2)) AS amount FROM range(0, 3)");
    assertThatThrownBy(() -> reordered.writeTo(TABLE).option("merge-schema", "true").append())
        .hasMessageContaining("must be the table's columns in order");

    Table after = icebergTable();
    assertThat(after.schema().sameSchema(before.schema())).isTrue();
    assertThat(after.currentSnapshot().snapshotId()).isEqualTo(before.currentSnapshot().snapshotId());
    assertThat(metadata(after).previousFiles()).hasSameSizeAs(metadata(before).previousFiles());
    assertThat(rows("SELECT * FROM " + TABLE + " ORDER BY id"))
        .containsExactlyElementsOf(rows("SELECT * FROM old_rows ORDER BY id"));
  }

  @Test
  void partitionedTablesKeepTheirLayout() throws Exception {
    sql(
        "CREATE TABLE floe.db.parted (id BIGINT, data STRING) USING iceberg PARTITIONED BY (bucket(2, id))"
            + " TBLPROPERTIES ('write.spark.accept-any-schema' = 'true')");
    try {
      // with accept-any-schema Spark no longer renames or casts the data to the table's columns
      sql("INSERT INTO floe.db.parted SELECT id, 'a' AS data FROM range(0, 6)");
      Dataset<Row> data = spark.sql("SELECT id, 'b' AS data, id * 2 AS twice FROM range(6, 12)");
      data.createOrReplaceTempView("parted_rows");
      data.writeTo("floe.db.parted").option("mergeSchema", "true").append();

      FloeCatalog catalog = (FloeCatalog) spark.sessionState().catalogManager().catalog("floe");
      Table table = catalog.icebergCatalog().loadTable(TableIdentifier.of("db", "parted"));
      assertThat(table.schema().findType("twice")).isEqualTo(Types.LongType.get());
      table.currentSnapshot().addedDataFiles(table.io())
          .forEach(file -> assertThat(file.partition().size()).isEqualTo(1));
      assertThat(rows("SELECT * FROM floe.db.parted WHERE id IN (1, 7) ORDER BY id"))
          .containsExactlyElementsOf(
              rows("SELECT id, 'a', CAST(NULL AS BIGINT) FROM range(0, 6) WHERE id = 1"
                  + " UNION ALL SELECT * FROM parted_rows WHERE id = 7 ORDER BY id"));
    } finally {
      sql("DROP TABLE floe.db.parted");
    }
  }

  @Test
  void aSchemaChangedSincePlanningFailsTheCommit() {
    Table planned = icebergTable();
    Schema merged = planned.updateSchema().addColumn("extra", Types.IntegerType.get()).apply();
    sql("ALTER TABLE %s ADD COLUMNS (other STRING)", TABLE);
    CommitRequest request =
        new CommitRequest(
            WriteMode.APPEND, List.of(), null, "merge-conflict", false,
            planned.currentSnapshot().snapshotId(), null, null, Map.of(), null, null);

    assertThatThrownBy(() -> new Committer(icebergTable(), TABLE).commit(request, merged))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("the table's schema changed since the write was planned");
    assertThat(icebergTable().schema().findField("extra")).isNull();
    assertThat(icebergTable().currentSnapshot().snapshotId()).isEqualTo(planned.currentSnapshot().snapshotId());
  }

  @Test
  void withoutTheOptionNewColumnsAreRefused() {
    Dataset<Row> data =
        spark.sql("SELECT CAST(id AS INT) AS id, CAST(id AS FLOAT) AS price,"
            + " CAST(id AS DECIMAL(5, 2)) AS amount, 'x' AS data, 1 AS extra FROM range(0, 3)");
    assertThatThrownBy(() -> data.writeTo(TABLE).append())
        .hasMessageContaining("the table has 4 columns but the data has 5");
    assertThat(icebergTable().schema().findField("extra")).isNull();
  }
}
