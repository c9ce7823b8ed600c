package io.floe.spark.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.iceberg.Schema;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import scala.jdk.javaapi.CollectionConverters;

/**
 * RENAME, DROP [PURGE], TRUNCATE and every ALTER TABLE change, as a user of one catalog type sees
 * them.
 */
abstract class AlterTableSuite extends CatalogTestBase {

  @BeforeAll
  void createNamespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
  }

  @Test
  void renamedTableKeepsItsRowsUnderTheNewName() {
    sql("CREATE TABLE floe.db.old_name (id BIGINT) USING iceberg");
    sql("INSERT INTO floe.db.old_name VALUES (1)");

    if (testCatalog().supportsRename()) {
      sql("ALTER TABLE floe.db.old_name RENAME TO floe.db.new_name");
      assertThat(sql("SELECT id FROM floe.db.new_name")).containsExactly(row(1L));
      assertThatThrownBy(() -> sql("SELECT * FROM floe.db.old_name"))
          .hasMessageContaining("TABLE_OR_VIEW_NOT_FOUND");

      sql("ALTER TABLE floe.db.new_name RENAME TO short_name");
      assertThat(sql("SELECT id FROM floe.db.short_name")).containsExactly(row(1L));
      assertThat(sql("SHOW TABLES IN floe.db LIKE '*name'"))
          .extracting(r -> r.getString(1))
          .containsExactly("short_name");
    } else {
      assertThatThrownBy(() -> sql("ALTER TABLE floe.db.old_name RENAME TO floe.db.new_name"))
          .hasMessageContaining("Cannot rename floe.db.old_name to floe.db.new_name")
          .hasMessageContaining("Cannot rename Hadoop tables");
      assertThat(sql("SELECT id FROM floe.db.old_name")).containsExactly(row(1L));
    }
  }

  @Test
  void renameOntoAnExistingTableFails() {
    Assumptions.assumeTrue(testCatalog().supportsRename(), "the catalog cannot rename tables");
    sql("CREATE TABLE floe.db.rename_a (id BIGINT) USING iceberg");
    sql("CREATE TABLE floe.db.rename_b (id BIGINT) USING iceberg");
    assertThatThrownBy(() -> sql("ALTER TABLE floe.db.rename_a RENAME TO floe.db.rename_b"))
        .hasMessageContaining("TABLE_OR_VIEW_ALREADY_EXISTS")
        .hasMessageContaining("rename_b");
    assertThat(tables()).contains("rename_a", "rename_b");
  }

  @Test
  void droppedTableIsGoneFromTheCatalog() {
    sql("CREATE TABLE floe.db.dropped (id BIGINT) USING iceberg");
    sql("INSERT INTO floe.db.dropped VALUES (1)");
    String location = icebergTable("db.dropped").location();

    sql("DROP TABLE floe.db.dropped");

    assertThat(tables()).doesNotContain("dropped");
    assertThatThrownBy(() -> sql("SELECT * FROM floe.db.dropped"))
        .hasMessageContaining("TABLE_OR_VIEW_NOT_FOUND")
        .hasMessageContaining("dropped");
    assertThat(dataFilesOnDisk(location)).hasSize(testCatalog().dropKeepsFiles() ? 1 : 0);
    assertThatThrownBy(() -> sql("DROP TABLE floe.db.dropped"))
        .hasMessageContaining("TABLE_OR_VIEW_NOT_FOUND");
    sql("DROP TABLE IF EXISTS floe.db.dropped");
  }

  @Test
  void dropTablePurgeDeletesTheTablesFiles() {
    sql("CREATE TABLE floe.db.purged (id BIGINT, p INT) USING iceberg PARTITIONED BY (p)");
    sql("INSERT INTO floe.db.purged VALUES (1, 1), (2, 2)");
    String location = icebergTable("db.purged").location();
    assertThat(dataFilesOnDisk(location)).hasSize(2);

    sql("DROP TABLE floe.db.purged PURGE");

    assertThat(tables()).doesNotContain("purged");
    assertThat(dataFilesOnDisk(location)).isEmpty();
    Path metadata = Path.of(URI.create(location)).resolve("metadata");
    assertThat(!Files.exists(metadata) || isEmpty(metadata)).isTrue();
  }

  @Test
  void purgeOfATableWithGcDisabledFailsAndKeepsItsFiles() {
    sql("CREATE TABLE floe.db.no_gc (id BIGINT) USING iceberg TBLPROPERTIES ('gc.enabled' = 'false')");
    sql("INSERT INTO floe.db.no_gc VALUES (1), (2)");
    String location = icebergTable("db.no_gc").location();
    List<Path> files = dataFilesOnDisk(location);
    assertThat(files).isNotEmpty();

    assertThatThrownBy(() -> sql("DROP TABLE floe.db.no_gc PURGE"))
        .hasMessageContaining("Cannot purge table: GC is disabled (deleting files may corrupt other tables)")
        .hasMessageContaining("db.no_gc");

    assertThat(dataFilesOnDisk(location)).isEqualTo(files);
    assertThat(sql("SELECT id FROM floe.db.no_gc ORDER BY id")).containsExactly(row(1L), row(2L));
    sql("ALTER TABLE floe.db.no_gc SET TBLPROPERTIES ('gc.enabled' = 'true')");
    sql("DROP TABLE floe.db.no_gc PURGE");
    assertThat(dataFilesOnDisk(location)).isEmpty();
  }

  @Test
  void addedColumnsAppearWhereAskedAndReadAsNullForOldRows() {
    sql("CREATE TABLE floe.db.added (id BIGINT, st STRUCT<a: INT, b: STRING>) USING iceberg");
    sql("INSERT INTO floe.db.added VALUES (1, named_struct('a', 10, 'b', 'x'))");

    sql("ALTER TABLE floe.db.added ADD COLUMN note STRING COMMENT 'added later'");
    sql("ALTER TABLE floe.db.added ADD COLUMNS (lead INT FIRST)");
    sql("ALTER TABLE floe.db.added ADD COLUMN score DOUBLE AFTER id");
    sql("ALTER TABLE floe.db.added ADD COLUMN st.c BIGINT AFTER a");
    sql("ALTER TABLE floe.db.added ADD COLUMN st.z BOOLEAN FIRST");
    sql("ALTER TABLE floe.db.added ADD COLUMN extra STRUCT<x: INT, y: ARRAY<STRUCT<q: STRING>>>");

    assertThat(sql("DESCRIBE TABLE floe.db.added"))
        .containsExactly(
            row("lead", "int", null),
            row("id", "bigint", null),
            row("score", "double", null),
            row("st", "struct<z:boolean,a:int,c:bigint,b:string>", null),
            row("note", "string", "added later"),
            row("extra", "struct<x:int,y:array<struct<q:string>>>", null));
    sql(
        "INSERT INTO floe.db.added VALUES (5, 2, 2.5, named_struct('z', true, 'a', 20, 'c', 200L,"
            + " 'b', 'y'), 'new', named_struct('x', 1, 'y', array(named_struct('q', 'w'))))");
    assertThat(sql("SELECT * FROM floe.db.added ORDER BY id"))
        .containsExactly(
            row(null, 1L, null, row(null, 10, null, "x"), null, null),
            row(5, 2L, 2.5, row(true, 20, 200L, "y"), "new", row(1, seq(row("w")))));
    assertThat(snapshots("db.added")).hasSize(2);
  }

  @Test
  void addingANotNullColumnFailsAndLeavesTheTableReadable() {
    sql("CREATE TABLE floe.db.add_required (id BIGINT, st STRUCT<a: INT>) USING iceberg");
    sql("INSERT INTO floe.db.add_required VALUES (1, named_struct('a', 10))");

    assertThatThrownBy(() -> sql("ALTER TABLE floe.db.add_required ADD COLUMN n INT NOT NULL"))
        .hasMessageContaining("Incompatible change: cannot add required column: n")
        .hasMessageContaining("Cannot add column n to floe.db.add_required")
        .hasMessageContaining("a new column must be nullable");
    assertThatThrownBy(() -> sql("ALTER TABLE floe.db.add_required ADD COLUMN st.b INT NOT NULL"))
        .hasMessageContaining("Cannot add column st.b to floe.db.add_required");

    assertThat(columns("floe.db.add_required")).containsExactly("id", "st");
    assertThat(sql("SELECT * FROM floe.db.add_required")).containsExactly(row(1L, row(10)));
  }

  @Test
  void renamedColumnsKeepTheirValues() {
    sql("CREATE TABLE floe.db.renamed_cols (id BIGINT, data STRING, st STRUCT<a: INT>) USING iceberg");
    sql("INSERT INTO floe.db.renamed_cols VALUES (1, 'one', named_struct('a', 10))");

    sql("ALTER TABLE floe.db.renamed_cols RENAME COLUMN data TO payload");
    sql("ALTER TABLE floe.db.renamed_cols RENAME COLUMN st.a TO alpha");

    assertThat(sql("SELECT payload, st.alpha FROM floe.db.renamed_cols"))
        .containsExactly(row("one", 10));
    assertThat(columns("floe.db.renamed_cols")).containsExactly("id", "payload", "st");
    assertThatThrownBy(() -> sql("SELECT data FROM floe.db.renamed_cols"))
        .hasMessageContaining("data");
  }

  @Test
  void droppedColumnsAreNoLongerRead() {
    sql("CREATE TABLE floe.db.dropped_cols (id BIGINT, data STRING, st STRUCT<a: INT, b: INT>)"
        + " USING iceberg");
    sql("INSERT INTO floe.db.dropped_cols VALUES (1, 'one', named_struct('a', 10, 'b', 20))");

    sql("ALTER TABLE floe.db.dropped_cols DROP COLUMN data");
    sql("ALTER TABLE floe.db.dropped_cols DROP COLUMN st.a");

    assertThat(sql("SELECT * FROM floe.db.dropped_cols")).containsExactly(row(1L, row(20)));
    assertThatThrownBy(() -> sql("ALTER TABLE floe.db.dropped_cols DROP COLUMN missing"))
        .hasMessageContaining("missing");
    sql("ALTER TABLE floe.db.dropped_cols DROP COLUMN IF EXISTS missing");
  }

  @Test
  void widenedTypesReadOldFilesAsTheNewType() {
    sql("CREATE TABLE floe.db.widened (i INT, f FLOAT, dec DECIMAL(9, 2)) USING iceberg");
    sql("INSERT INTO floe.db.widened VALUES (2147483647, CAST(1.5 AS FLOAT), -1234567.89)");

    sql("ALTER TABLE floe.db.widened ALTER COLUMN i TYPE BIGINT");
    sql("ALTER TABLE floe.db.widened ALTER COLUMN f TYPE DOUBLE");
    sql("ALTER TABLE floe.db.widened ALTER COLUMN dec TYPE DECIMAL(18, 2)");

    assertThat(sql("DESCRIBE TABLE floe.db.widened"))
        .containsExactly(
            row("i", "bigint", null), row("f", "double", null), row("dec", "decimal(18,2)", null));
    sql("INSERT INTO floe.db.widened VALUES (9223372036854775807, 2.25, 1234567890123456.78)");
    assertThat(sql("SELECT * FROM floe.db.widened ORDER BY i"))
        .containsExactly(
            row(2147483647L, 1.5d, new BigDecimal("-1234567.89")),
            row(Long.MAX_VALUE, 2.25d, new BigDecimal("1234567890123456.78")));
  }

  @Test
  void narrowingATypeFailsAndLeavesTheColumn() {
    sql("CREATE TABLE floe.db.narrowed (l BIGINT, s STRING) USING iceberg");
    sql("INSERT INTO floe.db.narrowed VALUES (1, 'a')");

    assertThatThrownBy(() -> sql("ALTER TABLE floe.db.narrowed ALTER COLUMN l TYPE INT"))
        .hasMessageContaining("`l`")
        .hasMessageContaining("\"INT\"");
    assertThatThrownBy(() -> sql("ALTER TABLE floe.db.narrowed ALTER COLUMN s TYPE INT"))
        .hasMessageContaining("`s`");

    assertThat(sql("DESCRIBE TABLE floe.db.narrowed"))
        .containsExactly(row("l", "bigint", null), row("s", "string", null));
    assertThat(sql("SELECT * FROM floe.db.narrowed")).containsExactly(row(1L, "a"));
  }

  @Test
  void droppingNotNullAllowsNulls() {
    sql("CREATE TABLE floe.db.nullability (id BIGINT NOT NULL, data STRING) USING iceberg");

    sql("ALTER TABLE floe.db.nullability ALTER COLUMN id DROP NOT NULL");
    sql("INSERT INTO floe.db.nullability VALUES (NULL, 'no id')");

    assertThat(icebergTable("db.nullability").schema().findField("id").isOptional()).isTrue();
    assertThat(sql("SELECT * FROM floe.db.nullability")).containsExactly(row(null, "no id"));
  }

  @Test
  void settingNotNullOnAnOptionalColumnFailsAndLeavesItOptional() {
    sql("CREATE TABLE floe.db.set_not_null (id BIGINT) USING iceberg");
    assertThatThrownBy(() -> sql("ALTER TABLE floe.db.set_not_null ALTER COLUMN id SET NOT NULL"))
        .hasMessageContaining("id");
    assertThat(icebergTable("db.set_not_null").schema().findField("id").isOptional()).isTrue();
  }

  @Test
  void columnCommentIsShown() {
    sql("CREATE TABLE floe.db.commented (id BIGINT, st STRUCT<a: INT>) USING iceberg");
    sql("ALTER TABLE floe.db.commented ALTER COLUMN id COMMENT 'the key'");
    sql("ALTER TABLE floe.db.commented ALTER COLUMN st.a COMMENT 'nested'");

    assertThat(sql("DESCRIBE TABLE floe.db.commented"))
        .containsExactly(row("id", "bigint", "the key"), row("st", "struct<a:int>", null));
    Schema schema = icebergTable("db.commented").schema();
    assertThat(schema.findField("st.a").doc()).isEqualTo("nested");
  }

  @Test
  void tablePropertiesAreSetAndUnset() {
    sql("CREATE TABLE floe.db.props (id BIGINT) USING iceberg");
    sql("ALTER TABLE floe.db.props SET TBLPROPERTIES ('team' = 'blue', 'write.target-file-size-bytes' = '1024')");

    assertThat(sql("SHOW TBLPROPERTIES floe.db.props ('team')")).containsExactly(row("team", "blue"));
    assertThat(icebergTable("db.props").properties())
        .containsEntry("team", "blue")
        .containsEntry("write.target-file-size-bytes", "1024");

    sql("ALTER TABLE floe.db.props UNSET TBLPROPERTIES ('team')");

    assertThat(icebergTable("db.props").properties())
        .doesNotContainKey("team")
        .containsEntry("write.target-file-size-bytes", "1024");
    sql("COMMENT ON TABLE floe.db.props IS 'described'");
    assertThat(DdlSuite.describeExtended("floe.db.props")).containsEntry("Comment", "described");
  }

  @Test
  void propertiesDerivedFromTheTableStateCannotBeSet() {
    sql("CREATE TABLE floe.db.derived (id BIGINT) USING iceberg");

    assertThatThrownBy(
            () -> sql("ALTER TABLE floe.db.derived SET TBLPROPERTIES ('current-snapshot-id' = '1')"))
        .hasMessageContaining("Cannot set property 'current-snapshot-id' of floe.db.derived");

    assertThat(icebergTable("db.derived").properties()).doesNotContainKey("current-snapshot-id");
    assertThat(sql("SHOW TBLPROPERTIES floe.db.derived ('current-snapshot-id')"))
        .containsExactly(row("current-snapshot-id", "none"));
  }

  @Test
  void truncateTableRemovesEveryRowInOneSnapshot() {
    sql("CREATE TABLE floe.db.truncated (id BIGINT, p INT) USING iceberg PARTITIONED BY (p)");
    sql("TRUNCATE TABLE floe.db.truncated");
    assertThat(snapshots("db.truncated")).isEmpty();
    sql("INSERT INTO floe.db.truncated VALUES (1, 1), (2, 2)");

    sql("TRUNCATE TABLE floe.db.truncated");

    assertThat(sql("SELECT * FROM floe.db.truncated")).isEmpty();
    assertThat(operations("db.truncated")).containsExactly("append", "delete");
    assertThat(snapshots("db.truncated").get(1).summary())
        .containsEntry("deleted-data-files", "2")
        .containsKey("floe.commit-id");
    sql("INSERT INTO floe.db.truncated VALUES (3, 1)");
    assertThat(sql("SELECT * FROM floe.db.truncated")).containsExactly(row(3L, 1));
  }

  @Test
  void aFailingChangeInOneStatementAppliesNoneOfItsChanges() {
    sql("CREATE TABLE floe.db.atomic (id BIGINT, data STRING) USING iceberg");

    assertThatThrownBy(() -> sql("ALTER TABLE floe.db.atomic ADD COLUMNS (fine INT, data INT)"))
        .hasMessageContaining("data");

    assertThat(columns("floe.db.atomic")).containsExactly("id", "data");
  }

  // helpers

  private static List<String> tables() {
    return sql("SHOW TABLES IN floe.db").stream().map(r -> r.getString(1)).collect(Collectors.toList());
  }

  private static List<String> columns(String table) {
    return sql("DESCRIBE TABLE %s", table).stream()
        .map(r -> r.getString(0))
        .takeWhile(name -> !name.isEmpty() && !name.startsWith("#"))
        .collect(Collectors.toList());
  }

  private static scala.collection.immutable.Seq<Object> seq(Object... values) {
    return CollectionConverters.asScala(List.of(values)).toList();
  }

  private static boolean isEmpty(Path folder) {
    try (var entries = Files.list(folder)) {
      return entries.findAny().isEmpty();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
