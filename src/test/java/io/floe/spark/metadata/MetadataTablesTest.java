package io.floe.spark.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.FloeCatalog;
import io.floe.spark.SparkTestBase;
import io.floe.spark.read.ReadTestSupport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataTableType;
import org.apache.iceberg.MetadataTableUtils;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.classic.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every Iceberg metadata table reached through the catalog as {@code floe.db.t.<name>}: its rows
 * equal those of Iceberg core's own metadata table scan, projections return exactly the projected
 * columns, and {@code count(*)}, filters and aggregates see the same rows.
 */
class MetadataTablesTest extends SparkTestBase {
  /** Metadata tables whose rows Iceberg core produces as data tasks of {@code newScan()}. */
  private static final List<MetadataTableType> TASK_TABLES =
      Arrays.stream(MetadataTableType.values())
          .filter(type -> type != MetadataTableType.POSITION_DELETES)
          .toList();

  @BeforeAll
  static void createTables() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
    sql("CREATE TABLE floe.db.events (id BIGINT, data STRING, category STRING) USING iceberg"
        + " PARTITIONED BY (category) TBLPROPERTIES ('format-version'='2')");
    sql("INSERT INTO floe.db.events VALUES (1, 'one', 'a'), (2, 'two', 'b'), (3, 'three', 'a')");
    sql("INSERT INTO floe.db.events VALUES (4, 'four', 'b'), (5, 'five', 'c')");

    sql("CREATE TABLE floe.db.with_deletes (id BIGINT, data STRING, category STRING) USING iceberg"
        + " PARTITIONED BY (category) TBLPROPERTIES ('format-version'='2')");
    sql("INSERT INTO floe.db.with_deletes VALUES (1, 'one', 'a'), (2, 'two', 'a'), (3, 'three', 'b')");
    Table table = icebergTable("db.with_deletes");
    DataFile fileA = ReadTestSupport.dataFiles(table).stream()
        .filter(file -> file.partition().get(0, String.class).equals("a"))
        .findFirst()
        .orElseThrow();
    DeleteFile deletes = ReadTestSupport.positionDeletes(table, fileA, List.of(1L));
    table.newRowDelta().addDeletes(deletes).commit();
  }

  @Test
  void everyMetadataTableReturnsTheRowsOfIcebergCore() {
    // a table with data and delete files, partitioned, with two snapshots: no metadata table is empty
    Table table = icebergTable("db.with_deletes");
    for (MetadataTableType type : TASK_TABLES) {
        String name = "floe.db.with_deletes." + type.name().toLowerCase();
        Table metadataTable = MetadataTableUtils.createMetadataTableInstance(table, type);
        List<Types.NestedField> keys = keyColumns(metadataTable);
        assertThat(keys).as(name).isNotEmpty();
        List<List<Object>> expected = coreRows(metadataTable, keys);
        assertThat(expected).as(name).isNotEmpty();

        Dataset<Row> all = spark.sql("SELECT * FROM " + name);
        assertThat(all.columns())
            .as(name)
            .containsExactlyElementsOf(
                metadataTable.schema().columns().stream().map(Types.NestedField::name).toList());
        List<Row> allRows = all.collectAsList();
        assertThat(keyValues(allRows, all.columns(), keys)).as(name).isEqualTo(expected);

        String projection = String.join(", ", keys.stream().map(Types.NestedField::name).toList());
        Dataset<Row> projected = spark.sql("SELECT " + projection + " FROM " + name);
        assertThat(projected.columns())
            .as(name)
            .containsExactlyElementsOf(keys.stream().map(Types.NestedField::name).toList());
        assertThat(keyValues(projected.collectAsList(), projected.columns(), keys))
            .as(name)
            .isEqualTo(expected);

        assertThat(sql("SELECT count(*) FROM " + name).get(0).getLong(0))
            .as(name)
            .isEqualTo(expected.size());

        Types.NestedField first = keys.get(0);
        Object value = expected.get(0).get(0);
        long matching = expected.stream().filter(row -> Objects.equals(row.get(0), value)).count();
        assertThat(
                sql("SELECT count(*) FROM %s WHERE %s = %s", name, first.name(), literal(value))
                    .get(0)
                    .getLong(0))
            .as(name + " filtered on " + first.name())
            .isEqualTo(matching);
    }
  }

  @Test
  void snapshotsOfTwoInsertsAreTwoAppends() {
    assertThat(sql("SELECT count(*) FROM floe.db.events.snapshots")).containsExactly(RowFactory.create(2L));
    Dataset<Row> operations = spark.sql("SELECT operation FROM floe.db.events.snapshots");
    assertThat(operations.columns()).containsExactly("operation");
    assertThat(operations.collectAsList()).containsExactly(RowFactory.create("append"), RowFactory.create("append"));
  }

  @Test
  void partitionsRecordCountsSumToTheTableRows() {
    assertThat(sql("SELECT sum(record_count) FROM floe.db.events.partitions"))
        .containsExactly(RowFactory.create(5L));
    assertThat(sql("SELECT partition.category, record_count FROM floe.db.events.partitions"
            + " ORDER BY partition.category"))
        .containsExactly(RowFactory.create("a", 2L), RowFactory.create("b", 2L), RowFactory.create("c", 1L));
  }

  @Test
  void deleteFilesTablesListThePositionDeleteFile() {
    assertThat(sql("SELECT content, record_count FROM floe.db.with_deletes.delete_files"))
        .containsExactly(RowFactory.create(1, 1L));
    assertThat(sql("SELECT count(*) FROM floe.db.with_deletes.data_files"))
        .containsExactly(RowFactory.create(2L));
    assertThat(sql("SELECT id FROM floe.db.with_deletes ORDER BY id"))
        .containsExactly(RowFactory.create(1L), RowFactory.create(3L));
  }

  // helpers

  /** The top-level columns of simple types, which compare as they are between both engines. */
  private static List<Types.NestedField> keyColumns(Table metadataTable) {
    return metadataTable.schema().columns().stream()
        .filter(field -> isSimple(field.type()))
        .toList();
  }

  private static boolean isSimple(Type type) {
    return type.typeId() == Type.TypeID.LONG
        || type.typeId() == Type.TypeID.INTEGER
        || type.typeId() == Type.TypeID.STRING
        || type.typeId() == Type.TypeID.BOOLEAN;
  }

  /** The key columns of every row Iceberg core's own scan of the metadata table produces, sorted. */
  private static List<List<Object>> coreRows(Table metadataTable, List<Types.NestedField> keys) {
    List<Integer> positions = new ArrayList<>();
    for (Types.NestedField key : keys) {
      positions.add(metadataTable.schema().columns().indexOf(key));
    }
    List<List<Object>> rows = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = metadataTable.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        try (CloseableIterable<StructLike> taskRows = task.asDataTask().rows()) {
          for (StructLike row : taskRows) {
            List<Object> values = new ArrayList<>();
            for (int position : positions) {
              Object value = row.get(position, Object.class);
              values.add(value instanceof CharSequence ? value.toString() : value);
            }
            rows.add(values);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    rows.sort((a, b) -> a.toString().compareTo(b.toString()));
    return rows;
  }

  private static List<List<Object>> keyValues(
      List<Row> rows, String[] columns, List<Types.NestedField> keys) {
    List<String> names = Arrays.asList(columns);
    List<List<Object>> result = new ArrayList<>();
    for (Row row : rows) {
      List<Object> values = new ArrayList<>();
      for (Types.NestedField key : keys) {
        values.add(row.get(names.indexOf(key.name())));
      }
      result.add(values);
    }
    result.sort((a, b) -> a.toString().compareTo(b.toString()));
    return result;
  }

  private static String literal(Object value) {
    if (value == null) {
      return "NULL";
    } else if (value instanceof String) {
      return "'" + ((String) value).replace("'", "\\'") + "'";
    } else if (value instanceof Long) {
      return value + "L";
    }
    return String.valueOf(value);
  }

  private static Table icebergTable(String name) {
    FloeCatalog catalog =
        (FloeCatalog) ((SparkSession) spark).sessionState().catalogManager().catalog("floe");
    return catalog.icebergCatalog().loadTable(TableIdentifier.parse(name));
  }

}
