package io.floe.spark.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.FloeCatalog;
import io.floe.spark.SparkTestBase;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.events.Listeners;
import org.apache.iceberg.events.ScanEvent;
import org.apache.iceberg.expressions.Expressions;
import org.apache.spark.sql.RowFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every scan Floe plans tells Iceberg's registered listeners, as Iceberg's table scans do: plain
 * reads, filtered reads, and aggregates answered from metadata alike.
 */
class ScanEventsTest extends SparkTestBase {
  private static final String TABLE = "floe.events_db.t";
  /** Listeners cannot be removed: one is registered for the class and keeps every event. */
  private static final List<ScanEvent> EVENTS = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void createTableAndListen() {
    Listeners.register(EVENTS::add, ScanEvent.class);
    sql("CREATE NAMESPACE IF NOT EXISTS floe.events_db");
    sql("CREATE TABLE %s (id BIGINT, p INT) USING iceberg PARTITIONED BY (p)", TABLE);
    sql("INSERT INTO %s VALUES (1, 1), (2, 2), (3, 2)", TABLE);
  }

  @BeforeEach
  void forget() {
    EVENTS.clear();
  }

  private static List<ScanEvent> eventsOfTable() {
    return EVENTS.stream().filter(event -> event.tableName().equals(TABLE)).toList();
  }

  @Test
  void aPlainReadIsOneScanEventOfTheCurrentSnapshot() {
    long current =
        ((FloeCatalog) spark.sessionState().catalogManager().catalog("floe"))
            .icebergCatalog()
            .loadTable(TableIdentifier.parse("events_db.t"))
            .currentSnapshot()
            .snapshotId();

    assertThat(sql("SELECT id FROM %s ORDER BY id", TABLE)).hasSize(3);

    assertThat(eventsOfTable()).isNotEmpty().allMatch(event -> event.snapshotId() == current);
  }

  @Test
  void aFilterThatSelectsWholePartitionsIsReportedWithItsFilter() {
    assertThat(sql("SELECT count(*) FROM %s WHERE p = 2", TABLE)).containsExactly(RowFactory.create(2L));

    assertThat(eventsOfTable()).isNotEmpty();
    assertThat(eventsOfTable().get(0).filter().toString()).contains("p");
    assertThat(eventsOfTable().get(0).filter()).isNotEqualTo(Expressions.alwaysTrue());
  }

  @Test
  void anAggregateAnsweredFromMetadataIsAScanToo() {
    assertThat(sql("SELECT count(*), min(id), max(id) FROM %s", TABLE)).containsExactly(RowFactory.create(3L, 1L, 3L));

    assertThat(eventsOfTable()).isNotEmpty();
  }
}
