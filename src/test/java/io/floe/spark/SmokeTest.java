package io.floe.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

class SmokeTest extends SparkTestBase {
  @Test
  void createInsertSelect() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
    sql("CREATE TABLE floe.db.t (id BIGINT, data STRING, day DATE) USING iceberg PARTITIONED BY (day)");
    sql("INSERT INTO floe.db.t VALUES (1, 'a', DATE '2024-01-01'), (2, 'b', DATE '2024-01-02')");
    sql("INSERT INTO floe.db.t VALUES (3, 'c', DATE '2024-01-01')");
    List<Row> rows = sql("SELECT id, data, day FROM floe.db.t ORDER BY id");
    assertThat(rows).hasSize(3);
    assertThat(rows.get(0).getLong(0)).isEqualTo(1L);
    assertThat(sql("SELECT count(*) FROM floe.db.t WHERE day = DATE '2024-01-01'").get(0).getLong(0)).isEqualTo(2L);
    assertThat(sql("SELECT operation FROM floe.db.t.snapshots")).hasSize(2);
  }
}
