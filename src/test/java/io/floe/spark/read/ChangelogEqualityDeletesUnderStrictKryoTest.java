package io.floe.spark.read;

import static io.floe.spark.read.EqualityDeleteCommits.commit;
import static io.floe.spark.read.EqualityDeleteCommits.data;
import static io.floe.spark.read.EqualityDeleteCommits.deletes;
import static io.floe.spark.read.EqualityDeleteCommits.row;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.serialization.Travel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The changelog of a table with equality deletes (an upsert and a delete by key, written with
 * Iceberg's generic writers) in a session with {@code spark.kryo.registrationRequired=true} and
 * Floe's registrator: the {@code changes} table and {@code create_changelog_view} with update
 * images (whose shuffles go through Kryo) read Spark's differences of each snapshot and its parent.
 */
class ChangelogEqualityDeletesUnderStrictKryoTest {
  private static final String TABLE = "floe.kq.t";
  private static SparkSession spark;
  private static Path warehouse;

  @BeforeAll
  static void startSpark() throws IOException {
    warehouse = Files.createTempDirectory("floe-kryo-changelog");
    spark = Travel.strictKryoFloeSession("floe-strict-kryo-changelog", warehouse);
  }

  @AfterAll
  static void stopSpark() throws IOException {
    Travel.stopAndDelete(spark, warehouse);
    spark = null;
  }

  private static List<String> sorted(String query, Object... args) {
    List<String> rows = new ArrayList<>();
    for (Row row : spark.sql(String.format(query, args)).collectAsList()) {
      rows.add(row.toString());
    }
    rows.sort(null);
    return rows;
  }

  private static String version(Long id) {
    return id == null
        ? String.format("(SELECT id, data, cat FROM %s WHERE false)", TABLE)
        : String.format("(SELECT id, data, cat FROM %s VERSION AS OF %d)", TABLE, id);
  }

  @Test
  void equalityDeleteChangesAndUpdateImagesReadWithRegistrationRequired() {
    spark.sql("CREATE NAMESPACE floe.kq");
    spark.sql("CREATE TABLE " + TABLE + " (id BIGINT NOT NULL, data STRING, cat STRING) USING iceberg "
        + "PARTITIONED BY (cat) TBLPROPERTIES ('format-version'='2')");
    spark.sql("INSERT INTO " + TABLE + " VALUES (1, 'a', 'x'), (2, 'b', 'x'), (3, 'c', 'y')");
    Table table = icebergTable(spark, "kq.t");
    PartitionSpec spec = table.spec();
    commit(table,
        List.of(deletes(table, spec, List.of("id"), List.of(row(1L)), "x"),
            deletes(table, spec, List.of("data"), List.of(row("c")), "y")),
        List.of(data(table, spec, List.of(row(1L, "a2", "x")), "x")));
    table.refresh();
    List<Snapshot> snapshots = new ArrayList<>();
    table.snapshots().forEach(snapshots::add);
    assertThat(snapshots).hasSize(2);

    String plain = "SELECT *, 'DELETE', %1$d, %2$dL FROM (SELECT * FROM %3$s EXCEPT ALL SELECT * FROM %4$s)"
        + " UNION ALL SELECT *, 'INSERT', %1$d, %2$dL FROM (SELECT * FROM %4$s EXCEPT ALL SELECT * FROM %3$s)";
    List<String> parts = new ArrayList<>();
    for (int ordinal = 0; ordinal < snapshots.size(); ordinal++) {
      Snapshot snapshot = snapshots.get(ordinal);
      parts.add(String.format(plain, ordinal, snapshot.snapshotId(), version(snapshot.parentId()),
          version(snapshot.snapshotId())));
    }
    List<String> expected = sorted(String.join(" UNION ALL ", parts));
    long upsert = snapshots.get(1).snapshotId();
    assertThat(expected).contains("[1,a,x,DELETE,1," + upsert + "]", "[3,c,y,DELETE,1," + upsert + "]");
    assertThat(sorted("SELECT * FROM %s.changes", TABLE)).isEqualTo(expected);

    spark.sql("CALL floe.system.create_changelog_view(table => 'kq.t', changelog_view => 'kq_ids', "
        + "identifier_columns => array('id'))").collect();
    // id 1 is deleted and inserted by the upsert: its two rows there are the update's images
    List<String> images = new ArrayList<>();
    for (String row : expected) {
      boolean updated = row.startsWith("[1,") && row.endsWith(",1," + upsert + "]");
      images.add(updated ? row.replace("DELETE", "UPDATE_BEFORE").replace("INSERT", "UPDATE_AFTER") : row);
    }
    images.sort(null);
    assertThat(sorted("SELECT * FROM kq_ids")).isEqualTo(images).contains("[1,a2,x,UPDATE_AFTER,1," + upsert + "]");
  }
}
