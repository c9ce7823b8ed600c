package io.floe.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.commit.Committer;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code rewrite_manifests} on a table partitioned by (cat, region) with one manifest per append:
 * the manifests after the call, the snapshot it commits, and rows unchanged.
 */
class RewriteManifestsTest extends ProcedureTestBase {
  private static final String TABLE = "db.manifests";

  @BeforeEach
  void createManifests() {
    sql("CREATE NAMESPACE IF NOT EXISTS %s.db", CATALOG);
    sql("DROP TABLE IF EXISTS %s.%s", CATALOG, TABLE);
    sql(
        "CREATE TABLE %s.%s (id BIGINT, cat STRING, region STRING) USING iceberg "
            + "PARTITIONED BY (cat, region)",
        CATALOG, TABLE);
    String[][] rows = {{"1", "a", "y"}, {"2", "b", "w"}, {"3", "c", "z"}, {"4", "d", "x"}};
    for (String[] row : rows) {
      sql("INSERT INTO %s.%s VALUES (%s, '%s', '%s')", CATALOG, TABLE, row[0], row[1], row[2]);
    }
  }

  private static List<ManifestFile> dataManifests() {
    Table table = icebergTable(TABLE);
    return table.currentSnapshot().dataManifests(table.io());
  }

  /** The categories of the files in each data manifest, one set per manifest, sorted. */
  private static Set<String> categoriesPerManifest() throws IOException {
    Table table = icebergTable(TABLE);
    Set<String> groups = new TreeSet<>();
    for (ManifestFile manifest : dataManifests()) {
      Set<String> cats = new TreeSet<>();
      try (ManifestReader<DataFile> reader =
          ManifestFiles.read(manifest, table.io(), table.specs())) {
        for (DataFile file : reader) {
          cats.add(file.partition().get(0, CharSequence.class).toString());
        }
      }
      groups.add(String.join("", cats));
    }
    return groups;
  }

  private static List<Long> allIds() {
    return sql("SELECT id FROM %s.%s ORDER BY id", CATALOG, TABLE).stream()
        .map(row -> row.getLong(0))
        .collect(Collectors.toList());
  }

  /** Sets the target manifest size so that the current manifests make two new ones. */
  private static void targetTwoManifests() {
    long total = dataManifests().stream().mapToLong(ManifestFile::length).sum();
    sql(
        "ALTER TABLE %s.%s SET TBLPROPERTIES ('commit.manifest.target-size-bytes' = '%d')",
        CATALOG, TABLE, (total + 1) / 2);
  }

  @Test
  void rewritesSmallManifestsIntoOneInOneReplaceSnapshot() {
    assertThat(dataManifests()).hasSize(4);
    int snapshotsBefore = snapshots(TABLE).size();

    Dataset<Row> result = call("rewrite_manifests('%s')", TABLE);

    assertSchema(
        result.schema(),
        column("rewritten_manifests_count", DataTypes.IntegerType, false),
        column("added_manifests_count", DataTypes.IntegerType, false));
    assertThat(result.collectAsList()).containsExactly(row(4, 1));
    assertThat(dataManifests()).hasSize(1);
    assertThat(snapshots(TABLE)).hasSize(snapshotsBefore + 1);
    Snapshot replace = icebergTable(TABLE).currentSnapshot();
    assertThat(replace.operation()).isEqualTo("replace");
    assertThat(replace.summary()).containsKey(Committer.COMMIT_ID_KEY);
    assertThat(allIds()).containsExactly(1L, 2L, 3L, 4L);
  }

  @Test
  void oneManifestThatNeedsNoSplittingIsLeftAlone() {
    call("rewrite_manifests('%s')", TABLE).collectAsList();
    int snapshotsBefore = snapshots(TABLE).size();
    assertThat(call("rewrite_manifests('%s')", TABLE).collectAsList()).containsExactly(row(0, 0));
    assertThat(snapshots(TABLE)).hasSize(snapshotsBefore);
  }

  @Test
  void clustersByAllPartitionFieldsInOrderByDefault() throws IOException {
    targetTwoManifests();
    assertThat(call("rewrite_manifests('%s')", TABLE).collectAsList()).containsExactly(row(4, 2));
    assertThat(categoriesPerManifest()).containsExactly("ab", "cd");
  }

  @Test
  void sortByClustersByTheNamedFields() throws IOException {
    targetTwoManifests();
    assertThat(
            call("rewrite_manifests(table => '%s', sort_by => array('region'))", TABLE)
                .collectAsList())
        .containsExactly(row(4, 2));
    // regions: b=w, d=x | a=y, c=z
    assertThat(categoriesPerManifest()).containsExactly("ac", "bd");
    assertThat(allIds()).containsExactly(1L, 2L, 3L, 4L);
  }

  @Test
  void specIdPicksTheManifestsOfThatSpec() {
    int specId = icebergTable(TABLE).spec().specId();
    assertThat(
            call(
                    "rewrite_manifests(table => '%s', spec_id => %d, use_caching => false)",
                    TABLE, specId)
                .collectAsList())
        .containsExactly(row(4, 1));
  }

  @Test
  void badArgumentsFailNamingThemAndChangeNothing() {
    int snapshotsBefore = snapshots(TABLE).size();
    assertThatThrownBy(
            () -> call("rewrite_manifests(table => '%s', spec_id => 7)", TABLE).collectAsList())
        .hasMessage(
            "Cannot call floe.system.rewrite_manifests: argument 'spec_id' names no partition "
                + "spec of floe.db.manifests; its spec ids are [0]");
    assertThatThrownBy(
            () ->
                call("rewrite_manifests(table => '%s', sort_by => array('nope'))", TABLE)
                    .collectAsList())
        .hasMessage(
            "Cannot call floe.system.rewrite_manifests: argument 'sort_by' names [nope], not "
                + "partition fields of spec 0 of floe.db.manifests (its fields: [cat, region])");
    assertThatThrownBy(
            () ->
                call("rewrite_manifests(table => '%s', sort_by => array())", TABLE).collectAsList())
        .hasMessage(
            "Cannot call floe.system.rewrite_manifests: argument 'sort_by' must not be empty when "
                + "given");
    assertThat(snapshots(TABLE)).hasSize(snapshotsBefore);
    assertThat(dataManifests()).hasSize(4);
  }
}
