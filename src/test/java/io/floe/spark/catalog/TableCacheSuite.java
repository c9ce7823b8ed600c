package io.floe.spark.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.FloeCatalog;
import java.util.HashMap;
import java.util.Map;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Tables a catalog keeps between loads. Catalog {@code floe} of the test session keeps them (the
 * default); {@code other}, a second session with its own {@code floe} catalog over the same
 * Iceberg catalog, stands for another application changing tables behind its back; {@code
 * nocache}, a catalog of the same name and options, has {@code cache-enabled=false}. What a user must see: every change made
 * elsewhere on the next query, while a query keeps the table version it was planned with.
 */
abstract class TableCacheSuite extends CatalogTestBase {
  private SparkSession other;
  private FloeCatalog nocache;

  @BeforeAll
  void startOtherCatalogs() {
    other = spark.newSession();
    // a new session starts from the application's configuration, without the test session's
    other.conf().set("spark.sql.catalog." + CATALOG, FloeCatalog.class.getName());
    catalogOptions(warehouse)
        .forEach((key, value) -> other.conf().set("spark.sql.catalog." + CATALOG + "." + key, value));
    Map<String, String> options = new HashMap<>(catalogOptions(warehouse));
    options.put("cache-enabled", "false");
    nocache = new FloeCatalog();
    nocache.initialize(CATALOG, new CaseInsensitiveStringMap(options));
    sql("CREATE NAMESPACE IF NOT EXISTS floe.cache");
  }

  @Test
  void theOtherSessionHasACatalogOfItsOwn() {
    assertThat(catalog(other)).isNotSameAs(catalog(spark));
  }

  @Test
  void rowsCommittedElsewhereAreReadOnTheNextQuery() {
    sql("CREATE TABLE floe.cache.rows (id BIGINT) USING iceberg");
    sql("INSERT INTO floe.cache.rows VALUES (1)");
    assertThat(sql("SELECT count(*) FROM floe.cache.rows")).containsExactly(row(1L));

    other.sql("INSERT INTO floe.cache.rows VALUES (2), (3)");

    assertThat(sql("SELECT id FROM floe.cache.rows ORDER BY id"))
        .containsExactly(row(1L), row(2L), row(3L));
  }

  @Test
  void schemaChangedElsewhereIsSeenOnTheNextQuery() {
    sql("CREATE TABLE floe.cache.evolving (id BIGINT) USING iceberg");
    sql("INSERT INTO floe.cache.evolving VALUES (1)");
    assertThat(sql("SELECT * FROM floe.cache.evolving")).containsExactly(row(1L));

    other.sql("ALTER TABLE floe.cache.evolving ADD COLUMN name STRING");
    other.sql("INSERT INTO floe.cache.evolving VALUES (2, 'b')");

    assertThat(sql("SELECT * FROM floe.cache.evolving ORDER BY id"))
        .containsExactly(row(1L, null), row(2L, "b"));
  }

  @Test
  void aLoadedTableKeepsItsVersionWhileTheTableMovesOn() throws Exception {
    sql("CREATE TABLE floe.cache.pinned (id BIGINT) USING iceberg");
    sql("INSERT INTO floe.cache.pinned VALUES (1)");
    Identifier ident = Identifier.of(new String[] {"cache"}, "pinned");
    FloeTable before = (FloeTable) catalog(spark).loadTable(ident);
    long snapshotBefore = before.table().currentSnapshot().snapshotId();

    other.sql("ALTER TABLE floe.cache.pinned ADD COLUMN name STRING");
    other.sql("INSERT INTO floe.cache.pinned VALUES (2, 'b')");
    FloeTable after = (FloeTable) catalog(spark).loadTable(ident);

    assertThat(after.table().currentSnapshot().snapshotId()).isNotEqualTo(snapshotBefore);
    assertThat(after.schema().fieldNames()).containsExactly("id", "name");
    assertThat(before.table().currentSnapshot().snapshotId()).isEqualTo(snapshotBefore);
    assertThat(before.table().schema().columns()).hasSize(1);
    assertThat(before.schema().fieldNames()).containsExactly("id");
  }

  @Test
  void unchangedMetadataIsReusedUnlessTheCacheIsOff() throws Exception {
    sql("CREATE TABLE floe.cache.reused (id BIGINT) USING iceberg");
    sql("INSERT INTO floe.cache.reused VALUES (1)");
    Identifier ident = Identifier.of(new String[] {"cache"}, "reused");

    assertThat(metadata(catalog(spark).loadTable(ident)))
        .isSameAs(metadata(catalog(spark).loadTable(ident)));
    TableMetadata uncached = metadata(nocache.loadTable(ident));
    TableMetadata uncachedAgain = metadata(nocache.loadTable(ident));
    assertThat(uncachedAgain).isNotSameAs(uncached);
    assertThat(uncachedAgain.metadataFileLocation()).isEqualTo(uncached.metadataFileLocation());
  }

  @Test
  void aTableDroppedElsewhereIsNotFoundAndItsSuccessorIsRead() {
    sql("CREATE TABLE floe.cache.replaced (id BIGINT) USING iceberg");
    sql("INSERT INTO floe.cache.replaced VALUES (1)");
    assertThat(sql("SELECT count(*) FROM floe.cache.replaced")).containsExactly(row(1L));

    other.sql("DROP TABLE floe.cache.replaced PURGE");

    assertThatThrownBy(() -> sql("SELECT count(*) FROM floe.cache.replaced"))
        .hasMessageContaining("TABLE_OR_VIEW_NOT_FOUND")
        .hasMessageContaining("replaced");

    other.sql("CREATE TABLE floe.cache.replaced (name STRING, n INT) USING iceberg");
    other.sql("INSERT INTO floe.cache.replaced VALUES ('a', 7)");

    assertThat(sql("SELECT * FROM floe.cache.replaced")).containsExactly(row("a", 7));
  }

  @Test
  void aLoadedTableRefusesCommitsAndChangesGoThroughTheCatalog() throws Exception {
    sql("CREATE TABLE floe.cache.readview (id BIGINT) USING iceberg");
    Identifier ident = Identifier.of(new String[] {"cache"}, "readview");
    Table view = ((FloeTable) catalog(spark).loadTable(ident)).table();

    assertThatThrownBy(() -> view.updateProperties().set("k", "v").commit())
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("cache.readview")
        .hasMessageContaining("read view");

    sql("ALTER TABLE floe.cache.readview SET TBLPROPERTIES ('k' = 'v')");
    sql("INSERT INTO floe.cache.readview VALUES (5)");

    assertThat(icebergTable("cache.readview").properties()).containsEntry("k", "v");
    assertThat(sql("SELECT id FROM floe.cache.readview")).containsExactly(row(5L));
  }

  @Test
  void invalidatedTableIsLoadedAfresh() throws Exception {
    sql("CREATE TABLE floe.cache.invalidated (id BIGINT) USING iceberg");
    Identifier ident = Identifier.of(new String[] {"cache"}, "invalidated");
    TableMetadata first = metadata(catalog(spark).loadTable(ident));

    sql("REFRESH TABLE floe.cache.invalidated");

    TableMetadata second = metadata(catalog(spark).loadTable(ident));
    assertThat(second).isNotSameAs(first);
    assertThat(second.metadataFileLocation()).isEqualTo(first.metadataFileLocation());
  }

  @Test
  void badCacheOptionsFailNamingTheOption() {
    Map<String, String> notBoolean = new HashMap<>(catalogOptions(warehouse));
    notBoolean.put("cache-enabled", "sometimes");
    assertThatThrownBy(() -> new FloeCatalog().initialize("bad", new CaseInsensitiveStringMap(notBoolean)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("catalog bad")
        .hasMessageContaining("'cache-enabled'")
        .hasMessageContaining("'sometimes'");

    Map<String, String> notNumber = new HashMap<>(catalogOptions(warehouse));
    notNumber.put("cache.expiration-interval-ms", "30s");
    assertThatThrownBy(() -> new FloeCatalog().initialize("bad", new CaseInsensitiveStringMap(notNumber)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'cache.expiration-interval-ms'")
        .hasMessageContaining("'30s'");
  }

  private static FloeCatalog catalog(SparkSession session) {
    return (FloeCatalog) session.sessionState().catalogManager().catalog(CATALOG);
  }

  private static TableMetadata metadata(org.apache.spark.sql.connector.catalog.Table table) {
    return ((HasTableOperations) ((FloeTable) table).table()).operations().current();
  }
}
