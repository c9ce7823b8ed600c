package io.floe.spark.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Namespaces, CREATE TABLE (every type, constraints, comments, properties, location, every
 * partition transform), DESCRIBE and SHOW, as a user of one catalog type sees them.
 */
abstract class DdlSuite extends CatalogTestBase {

  @BeforeAll
  void createNamespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
  }

  // namespaces

  @Test
  void createdNamespaceIsListedAndDroppedNamespaceIsNot() {
    sql("CREATE NAMESPACE floe.ns_life");
    assertThat(namespaces("floe")).contains("ns_life");
    assertThat(sql("SHOW NAMESPACES IN floe LIKE 'ns_l*'")).containsExactly(row("ns_life"));

    sql("DROP NAMESPACE floe.ns_life");

    assertThat(namespaces("floe")).doesNotContain("ns_life");
    assertThatThrownBy(() -> sql("DROP NAMESPACE floe.ns_life"))
        .hasMessageContaining("SCHEMA_NOT_FOUND")
        .hasMessageContaining("ns_life");
  }

  @Test
  void nestedNamespaceIsListedUnderItsParent() {
    sql("CREATE NAMESPACE floe.parent");
    sql("CREATE NAMESPACE floe.parent.child");

    assertThat(namespaces("floe.parent")).containsExactly("parent.child");

    sql("DROP NAMESPACE floe.parent CASCADE");
    assertThat(namespaces("floe")).doesNotContain("parent");
  }

  @Test
  void creatingAnExistingNamespaceFails() {
    sql("CREATE NAMESPACE floe.twice");
    assertThatThrownBy(() -> sql("CREATE NAMESPACE floe.twice"))
        .hasMessageContaining("SCHEMA_ALREADY_EXISTS")
        .hasMessageContaining("twice");
    sql("CREATE NAMESPACE IF NOT EXISTS floe.twice");
    sql("DROP NAMESPACE floe.twice");
  }

  @Test
  void namespacePropertiesAreStoredWhereTheCatalogSupportsThem() {
    if (testCatalog().supportsNamespaceProperties()) {
      sql("CREATE NAMESPACE floe.props COMMENT 'sales data' WITH DBPROPERTIES ('team' = 'blue')");
      assertThat(describeNamespace("floe.props"))
          .containsEntry("Comment", "sales data")
          .hasEntrySatisfying("Properties", value -> assertThat(value).contains("(team,blue)"));

      sql("ALTER NAMESPACE floe.props SET DBPROPERTIES ('team' = 'red', 'tier' = 'gold')");
      assertThat(describeNamespace("floe.props").get("Properties"))
          .contains("(team,red)")
          .contains("(tier,gold)");

      sql("ALTER NAMESPACE floe.props UNSET DBPROPERTIES ('tier')");
      assertThat(describeNamespace("floe.props").get("Properties"))
          .contains("(team,red)")
          .doesNotContain("tier");
      sql("DROP NAMESPACE floe.props");
    } else {
      assertThatThrownBy(
              () -> sql("CREATE NAMESPACE floe.props WITH DBPROPERTIES ('team' = 'blue')"))
          .hasMessageContaining("props")
          .hasMessageContaining("not supported");
      assertThat(namespaces("floe")).doesNotContain("props");
    }
  }

  @Test
  void droppingANonEmptyNamespaceNeedsCascade() {
    sql("CREATE NAMESPACE floe.full");
    sql("CREATE TABLE floe.full.t (id BIGINT) USING iceberg");
    sql("INSERT INTO floe.full.t VALUES (1)");
    String location = icebergTable("full.t").location();

    assertThatThrownBy(() -> sql("DROP NAMESPACE floe.full"))
        .hasMessageContaining("SCHEMA_NOT_EMPTY")
        .hasMessageContaining("full");
    assertThat(sql("SELECT id FROM floe.full.t")).containsExactly(row(1L));

    sql("DROP NAMESPACE floe.full CASCADE");

    assertThat(namespaces("floe")).doesNotContain("full");
    assertThat(dataFilesOnDisk(location)).isEmpty();
  }

  // CREATE TABLE

  @Test
  void createTableWithEveryTypeShowsTheTypesCommentsAndConstraints() {
    sql(
        "CREATE TABLE floe.db.all_types ("
            + " id BIGINT NOT NULL COMMENT 'row id',"
            + " flag BOOLEAN, i INT, l BIGINT, f FLOAT, d DOUBLE,"
            + " dec DECIMAL(12, 3), day DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ,"
            + " s STRING COMMENT 'free text', bin BINARY,"
            + " st STRUCT<a: INT NOT NULL, b: STRUCT<c: ARRAY<MAP<STRING, STRUCT<d: BIGINT>>>>>,"
            + " arr ARRAY<DECIMAL(5, 2)>, m MAP<STRING, DOUBLE>)"
            + " USING iceberg COMMENT 'every type'"
            + " TBLPROPERTIES ('owner.team' = 'blue', 'write.parquet.compression-codec' = 'zstd')");

    assertThat(sql("DESCRIBE TABLE floe.db.all_types"))
        .containsExactly(
            row("id", "bigint", "row id"),
            row("flag", "boolean", null),
            row("i", "int", null),
            row("l", "bigint", null),
            row("f", "float", null),
            row("d", "double", null),
            row("dec", "decimal(12,3)", null),
            row("day", "date", null),
            row("ts", "timestamp", null),
            row("ntz", "timestamp_ntz", null),
            row("s", "string", "free text"),
            row("bin", "binary", null),
            row("st", "struct<a:int,b:struct<c:array<map<string,struct<d:bigint>>>>>", null),
            row("arr", "array<decimal(5,2)>", null),
            row("m", "map<string,double>", null));

    Table table = icebergTable("db.all_types");
    Schema schema = table.schema();
    assertThat(schema.findField("id").isRequired()).isTrue();
    assertThat(schema.findField("id").doc()).isEqualTo("row id");
    assertThat(schema.findField("st.a").isRequired()).isTrue();
    assertThat(schema.findField("st.b").isOptional()).isTrue();
    assertThat(schema.findType("ts")).isEqualTo(Types.TimestampType.withZone());
    assertThat(schema.findType("ntz")).isEqualTo(Types.TimestampType.withoutZone());
    assertThat(schema.findType("dec")).isEqualTo(Types.DecimalType.of(12, 3));
    Types.MapType element = schema.findType("st.b.c").asListType().elementType().asMapType();
    assertThat(element.keyType()).isEqualTo(Types.StringType.get());
    assertThat(element.valueType().asStructType().field("d").type()).isEqualTo(Types.LongType.get());
    assertThat(schema.findType("arr").asListType().elementType()).isEqualTo(Types.DecimalType.of(5, 2));
    assertThat(table.properties())
        .containsEntry("owner.team", "blue")
        .containsEntry("write.parquet.compression-codec", "zstd")
        .containsEntry("comment", "every type");

    Map<String, String> details = describeExtended("floe.db.all_types");
    assertThat(details)
        .containsEntry("Comment", "every type")
        .containsEntry("Provider", "iceberg")
        .containsKey("Location");
    assertThat(details.get("Table Properties"))
        .contains("owner.team=blue")
        .contains("write.parquet.compression-codec=zstd");
    assertThat(sql("SHOW TBLPROPERTIES floe.db.all_types ('owner.team')"))
        .containsExactly(row("owner.team", "blue"));
    assertThat(tables("db")).contains("all_types");
  }

  @Test
  void createTableAtALocationWritesThereWhereTheCatalogAllowsIt() throws Exception {
    Path location = Files.createTempDirectory(warehouse, "custom-location");
    String create =
        String.format(
            "CREATE TABLE floe.db.located (id BIGINT) USING iceberg LOCATION '%s'", location.toUri());
    if (testCatalog().supportsCustomLocation()) {
      sql(create);
      sql("INSERT INTO floe.db.located VALUES (1)");

      String tableLocation = icebergTable("db.located").location();
      assertThat(Path.of(URI.create(tableLocation))).isEqualTo(location);
      assertThat(describeExtended("floe.db.located")).containsEntry("Location", tableLocation);
      assertThat(dataFilesOnDisk(tableLocation)).hasSize(1);
      assertThat(sql("SELECT id FROM floe.db.located")).containsExactly(row(1L));
    } else {
      assertThatThrownBy(() -> sql(create)).hasMessageContaining("custom location");
      assertThat(tables("db")).doesNotContain("located");
    }
  }

  @Test
  void createTableThatExistsFailsAndIfNotExistsKeepsTheTable() {
    sql("CREATE TABLE floe.db.existing (id BIGINT) USING iceberg");
    sql("INSERT INTO floe.db.existing VALUES (7)");

    assertThatThrownBy(() -> sql("CREATE TABLE floe.db.existing (other STRING) USING iceberg"))
        .hasMessageContaining("TABLE_OR_VIEW_ALREADY_EXISTS")
        .hasMessageContaining("existing");
    sql("CREATE TABLE IF NOT EXISTS floe.db.existing (other STRING) USING iceberg");

    assertThat(sql("SELECT * FROM floe.db.existing")).containsExactly(row(7L));
  }

  @Test
  void createTableWithoutUsingMakesAnIcebergTable() {
    sql("CREATE TABLE floe.db.no_provider (id BIGINT)");
    assertThat(describeExtended("floe.db.no_provider")).containsEntry("Provider", "iceberg");
  }

  @Test
  void theDefaultNamespaceTakesTablesWithoutCreateNamespace() {
    assertThat(sql("SHOW TABLES IN floe.default")).isEmpty();

    sql("CREATE TABLE floe.default.t_in_default (id BIGINT) USING iceberg");
    sql("INSERT INTO floe.default.t_in_default VALUES (1), (2)");

    assertThat(sql("SELECT id FROM floe.default.t_in_default ORDER BY id")).containsExactly(row(1L), row(2L));
    assertThat(sql("SHOW TABLES IN floe.default")).contains(row("default", "t_in_default", false));
    String previous = spark.sessionState().catalogManager().currentCatalog().name();
    try {
      sql("USE floe");
      sql("CREATE TABLE t_unqualified (id BIGINT)");
      assertThat(icebergCatalog().tableExists(TableIdentifier.of("default", "t_unqualified"))).isTrue();
    } finally {
      sql("USE " + previous);
      sql("DROP TABLE IF EXISTS floe.default.t_unqualified");
      sql("DROP TABLE IF EXISTS floe.default.t_in_default");
    }
  }

  @Test
  void createTableInMissingNamespaceFails() {
    assertThatThrownBy(() -> sql("CREATE TABLE floe.nowhere.t (id BIGINT) USING iceberg"))
        .hasMessageContaining("SCHEMA_NOT_FOUND")
        .hasMessageContaining("nowhere");
  }

  @ParameterizedTest(name = "PARTITIONED BY ({0})")
  @CsvSource(
      delimiter = '|',
      value = {
        "category                    | category:identity(category)          | category",
        "identity(category)          | category:identity(category)          | category",
        "bucket(16, id)              | id_bucket:bucket[16](id)              | bucket(16, id)",
        "truncate(category, 4)       | category_trunc:truncate[4](category)  | truncate(category, 4)",
        "truncate(4, category)       | category_trunc:truncate[4](category)  | truncate(category, 4)",
        "truncate(amount, 10)        | amount_trunc:truncate[10](amount)     | truncate(amount, 10)",
        "years(ts)                   | ts_year:year(ts)                      | years(ts)",
        "months(ts)                  | ts_month:month(ts)                    | months(ts)",
        "days(ts)                    | ts_day:day(ts)                        | days(ts)",
        "hours(ts)                   | ts_hour:hour(ts)                      | hours(ts)",
        "years(day)                  | day_year:year(day)                    | years(day)",
        "months(day)                 | day_month:month(day)                  | months(day)",
        "days(day)                   | day_day:day(day)                      | days(day)",
        "hours(ntz)                  | ntz_hour:hour(ntz)                    | hours(ntz)",
        "days(ts), bucket(4, id)     | ts_day:day(ts),id_bucket:bucket[4](id) | days(ts),bucket(4, id)",
        "category, truncate(s.inner, 2) | category:identity(category),s.inner_trunc:truncate[2](s.inner)"
            + " | category,truncate(s.inner, 2)"
      })
  void everyPartitionTransformBecomesTheMatchingIcebergSpec(
      String partitioning, String expectedSpec, String expectedDescribe) {
    String name = "parts_" + Integer.toHexString(partitioning.hashCode()).replace('-', '_');
    sql(
        "CREATE TABLE floe.db.%s (id BIGINT, category STRING, amount DECIMAL(10, 2), ts TIMESTAMP,"
            + " ntz TIMESTAMP_NTZ, day DATE, s STRUCT<inner: STRING>)"
            + " USING iceberg PARTITIONED BY (%s)",
        name, partitioning);

    PartitionSpec spec = icebergTable("db." + name).spec();
    assertThat(describe(spec)).isEqualTo(expectedSpec);

    List<String> describedTransforms = partitionRows("floe.db." + name);
    assertThat(String.join(",", describedTransforms)).isEqualTo(expectedDescribe);

  }

  @Test
  void identityPartitioningIsShownAsPartitionColumns() {
    sql("CREATE TABLE floe.db.by_cat (id BIGINT, cat STRING COMMENT 'the category') USING iceberg"
        + " PARTITIONED BY (cat)");
    List<Row> described = sql("DESCRIBE TABLE floe.db.by_cat");
    assertThat(described)
        .containsSubsequence(
            row("# Partition Information", "", ""),
            row("# col_name", "data_type", "comment"),
            row("cat", "string", "the category"));
  }

  @Test
  void describeExtendedShowsPartitioningAndTableDetails() {
    sql("CREATE TABLE floe.db.described (id BIGINT, ts TIMESTAMP) USING iceberg"
        + " PARTITIONED BY (bucket(8, id), hours(ts))");
    List<Row> described = sql("DESCRIBE TABLE EXTENDED floe.db.described");
    assertThat(described)
        .containsSubsequence(
            row("# Partitioning", "", ""),
            row("Part 0", "bucket(8, id)", ""),
            row("Part 1", "hours(ts)", ""),
            row("# Detailed Table Information", "", ""),
            row("Name", "floe.db.described", ""));
  }

  @Test
  void showCreateTableOutputCreatesTheSameTable() {
    sql("CREATE TABLE floe.db.shown (id BIGINT NOT NULL COMMENT 'key', s STRING, ts TIMESTAMP)"
        + " USING iceberg PARTITIONED BY (bucket(4, id), truncate(s, 2), days(ts))"
        + " COMMENT 'shown table' TBLPROPERTIES ('team' = 'blue')");
    sql("INSERT INTO floe.db.shown VALUES (1, 'abc', TIMESTAMP '2024-01-01 00:00:00')");
    List<Row> describedBefore = sql("DESCRIBE TABLE floe.db.shown");
    String ddl = sql("SHOW CREATE TABLE floe.db.shown").get(0).getString(0);
    assertThat(ddl)
        .contains("USING iceberg")
        .contains("PARTITIONED BY (bucket(4, id), truncate(s, 2), days(ts))")
        .contains("'team' = 'blue'");

    sql("DROP TABLE floe.db.shown PURGE");
    spark.sql(ddl);

    assertThat(sql("DESCRIBE TABLE floe.db.shown")).isEqualTo(describedBefore);
    Table recreated = icebergTable("db.shown");
    assertThat(describe(recreated.spec()))
        .isEqualTo("id_bucket:bucket[4](id),s_trunc:truncate[2](s),ts_day:day(ts)");
    assertThat(recreated.properties())
        .containsEntry("team", "blue")
        .containsEntry("comment", "shown table")
        .doesNotContainKeys("current-snapshot-id", "format");
    assertThat(snapshots("db.shown")).isEmpty();
  }

  @Test
  void showTablesListsTheNamespacesTables() {
    sql("CREATE NAMESPACE floe.listing");
    sql("CREATE TABLE floe.listing.one (id BIGINT) USING iceberg");
    sql("CREATE TABLE floe.listing.two (id BIGINT) USING iceberg");

    assertThat(sql("SHOW TABLES IN floe.listing"))
        .containsExactlyInAnyOrder(row("listing", "one", false), row("listing", "two", false));
    sql("DROP NAMESPACE floe.listing CASCADE");
  }

  // helpers

  private static List<String> namespaces(String parent) {
    return sql("SHOW NAMESPACES IN %s", parent).stream()
        .map(row -> row.getString(0))
        .collect(Collectors.toList());
  }

  private static List<String> tables(String namespace) {
    return sql("SHOW TABLES IN floe.%s", namespace).stream()
        .map(row -> row.getString(1))
        .collect(Collectors.toList());
  }

  private static Map<String, String> describeNamespace(String namespace) {
    return sql("DESCRIBE NAMESPACE EXTENDED %s", namespace).stream()
        .collect(Collectors.toMap(row -> row.getString(0), row -> row.getString(1)));
  }

  static Map<String, String> describeExtended(String table) {
    Map<String, String> details = new LinkedHashMap<>();
    boolean inDetails = false;
    for (Row row : sql("DESCRIBE TABLE EXTENDED %s", table)) {
      if ("# Detailed Table Information".equals(row.getString(0))) {
        inDetails = true;
      } else if (inDetails && !row.getString(0).isEmpty()) {
        details.put(row.getString(0), row.getString(1));
      }
    }
    return details;
  }

  /** The transforms DESCRIBE TABLE lists under its partitioning section. */
  private static List<String> partitionRows(String table) {
    List<Row> described = sql("DESCRIBE TABLE %s", table);
    List<String> transforms = new ArrayList<>();
    String section = null;
    for (Row row : described) {
      String first = row.getString(0);
      if (first.equals("# Partitioning") || first.equals("# Partition Information")) {
        section = first;
      } else if ("# Partitioning".equals(section) && first.startsWith("Part ")) {
        transforms.add(row.getString(1));
      } else if ("# Partition Information".equals(section)
          && !first.isEmpty()
          && !first.startsWith("# ")) {
        transforms.add(first);
      }
    }
    return transforms;
  }

  private static String describe(PartitionSpec spec) {
    return spec.fields().stream()
        .map(field -> describe(spec, field))
        .collect(Collectors.joining(","));
  }

  private static String describe(PartitionSpec spec, PartitionField field) {
    return field.name() + ":" + field.transform() + "(" + spec.schema().findColumnName(field.sourceId()) + ")";
  }
}
