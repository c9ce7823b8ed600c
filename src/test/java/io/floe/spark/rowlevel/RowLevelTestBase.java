package io.floe.spark.rowlevel;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.catalog.CatalogTestBase;
import io.floe.spark.catalog.TestCatalog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * Shared setup of the row-level suites: a table {@code floe.db.t} and a temporary view {@code v}
 * holding the same rows (inserted in several statements, so the table has several files), and
 * checks that compare the table after a statement with Spark's own answer over the view, read
 * through Floe and through Iceberg's generic reader.
 */
abstract class RowLevelTestBase extends CatalogTestBase {
  protected static final String TABLE = "floe.db.t";
  private static final AtomicInteger JOBS = new AtomicInteger();

  @Override
  protected TestCatalog testCatalog() {
    return TestCatalog.HADOOP;
  }

  @BeforeAll
  void countJobs() {
    spark.sparkContext()
        .addSparkListener(
            new SparkListener() {
              @Override
              public void onJobStart(SparkListenerJobStart jobStart) {
                JOBS.incrementAndGet();
              }
            });
  }

  @AfterEach
  void dropTables() {
    sql("DROP TABLE IF EXISTS " + TABLE);
    sql("DROP TABLE IF EXISTS floe.db.src");
    spark.catalog().dropTempView("v");
    spark.catalog().dropTempView("s");
  }

  /** Runs a statement as written (no format conversions, so {@code %} is SQL's modulo). */
  protected static List<Row> sql(String statement) {
    return spark.sql(statement).collectAsList();
  }

  /** Jobs Spark started so far. */
  protected static int jobs() {
    return JOBS.get();
  }

  /**
   * Creates {@code floe.db.t} and the view {@code v} over the same rows.
   *
   * @param columns the columns as DDL
   * @param clauses PARTITIONED BY and TBLPROPERTIES clauses
   * @param batches each a VALUES list inserted by one statement
   */
  protected static void create(String columns, String clauses, String... batches) {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
    sql("CREATE TABLE " + TABLE + " (" + columns + ") USING iceberg " + clauses);
    for (String batch : batches) {
      sql("INSERT INTO " + TABLE + " VALUES " + batch);
    }
    view("v", TABLE);
  }

  /** A temporary view holding a copy of the table's rows now; it does not follow the table. */
  protected static void view(String name, String table) {
    Dataset<Row> rows = spark.table(table);
    spark.createDataFrame(rows.collectAsList(), rows.schema()).createOrReplaceTempView(name);
  }

  /** The table's rows as sorted text, read by Floe. */
  protected static List<String> tableRows() {
    return text(sql("SELECT * FROM " + TABLE));
  }

  /** Spark's rows of a query, as sorted text. */
  protected static List<String> rows(String query) {
    return text(sql(query));
  }

  /**
   * Spark's rows of each query, as sorted text, computed by one job instead of one per query: a
   * {@code UNION ALL} of the queries, each row tagged with its query's index. The queries must
   * have the same columns.
   */
  protected static List<List<String>> rowsOfEach(List<String> queries) {
    List<String> tagged = new ArrayList<>();
    for (int i = 0; i < queries.size(); i += 1) {
      tagged.add("SELECT " + i + " AS floe_query_index, * FROM (" + queries.get(i) + ")");
    }
    List<List<Row>> grouped = new ArrayList<>();
    queries.forEach(query -> grouped.add(new ArrayList<>()));
    for (Row row : sql(String.join(" UNION ALL ", tagged))) {
      grouped.get(row.getInt(0)).add(row);
    }
    List<List<String>> result = new ArrayList<>();
    for (List<Row> rows : grouped) {
      List<String> texts = new ArrayList<>();
      for (Row row : rows) {
        List<Object> values = new ArrayList<>();
        for (int i = 1; i < row.size(); i += 1) {
          values.add(row.get(i));
        }
        texts.add(format(values));
      }
      Collections.sort(texts);
      result.add(texts);
    }
    return result;
  }

  /**
   * Asserts that the table holds the rows of the query over the view, through Floe and through
   * Iceberg's generic reader (so the change is in the table, not only hidden by Floe's reader).
   */
  protected static void assertTableIs(String expectedQuery) {
    List<String> expected = rows(expectedQuery);
    assertThat(tableRows()).as("Floe's rows of %s", TABLE).isEqualTo(expected);
    assertThat(icebergRows()).as("Iceberg's generic rows of %s", TABLE).isEqualTo(expected);
  }

  /** The table's rows as Iceberg's generic reader reads them, as sorted text. */
  protected static List<String> icebergRows() {
    Table table = icebergTable("db.t");
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      // the generic reader appends _pos to the rows of files that position deletes apply to
      int width = table.schema().columns().size();
      for (Record record : records) {
        List<Object> values = new ArrayList<>();
        for (int i = 0; i < width; i += 1) {
          values.add(record.get(i));
        }
        rows.add(format(values));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Collections.sort(rows);
    return rows;
  }

  private static List<String> text(List<Row> rows) {
    List<String> result = new ArrayList<>();
    for (Row row : rows) {
      List<Object> values = new ArrayList<>();
      for (int i = 0; i < row.size(); i += 1) {
        values.add(row.get(i));
      }
      result.add(format(values));
    }
    Collections.sort(result);
    return result;
  }

  private static String format(List<Object> values) {
    StringBuilder text = new StringBuilder("[");
    for (Object value : values) {
      if (text.length() > 1) {
        text.append(", ");
      }
      if (value instanceof java.sql.Timestamp ts) {
        text.append(ts.toInstant());
      } else if (value instanceof java.time.OffsetDateTime ts) {
        text.append(ts.toInstant());
      } else if (value instanceof java.sql.Date date) {
        text.append(date.toLocalDate());
      } else if (value instanceof BigDecimal decimal) {
        text.append(decimal.toPlainString());
      } else if (value instanceof Float || value instanceof Double) {
        text.append(((Number) value).doubleValue());
      } else {
        text.append(value);
      }
    }
    return text.append("]").toString();
  }

  /** The table's current snapshot. */
  protected static Snapshot current() {
    return icebergTable("db.t").currentSnapshot();
  }

  /** The live data files of the current snapshot. */
  protected static List<DataFile> liveDataFiles() {
    List<DataFile> files = new ArrayList<>();
    for (FileScanTask task : tasks()) {
      files.add(task.file());
    }
    return files;
  }

  /** The delete files that apply to live data files. */
  protected static List<DeleteFile> liveDeleteFiles() {
    List<DeleteFile> files = new ArrayList<>();
    for (FileScanTask task : tasks()) {
      files.addAll(task.deletes());
    }
    return files;
  }

  private static List<FileScanTask> tasks() {
    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> planned = icebergTable("db.t").newScan().planFiles()) {
      planned.forEach(tasks::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return tasks;
  }
}
