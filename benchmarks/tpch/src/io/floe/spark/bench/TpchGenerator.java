package io.floe.spark.bench;

import io.trino.tpch.TpchColumn;
import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Writes the eight TPC-H tables at a given scale factor as Iceberg tables of namespace {@code
 * bench.tpch}, for the benchmark in {@code benchmarks/} (issue 10); not a test.
 *
 * <p>Rows come from the Java TPC-H generator {@code io.trino.tpch:tpch} 1.2 (the same data as {@code
 * dbgen}); each Spark partition generates one part of a table ({@code createGenerator(sf, part,
 * parts)}), so no table is ever held in memory. Column types follow the generator: identifiers are
 * {@code BIGINT}, integers {@code INT}, money and quantities {@code DOUBLE}, dates {@code DATE}, text
 * {@code STRING}. It runs in the generator JVM (Spark plus the official runtime plus the tpch jar) and
 * carries no state.
 *
 * <p>It lives outside {@code src/test/java} because the project's pom does not (and should not) depend on
 * the tpch jar; {@code benchmarks/run.sh} compiles it with {@code javac} against {@code
 * benchmarks/tpch/pom.xml}'s classpath. Usage: {@code TpchGenerator <warehouse> <scale factor>}.
 */
public final class TpchGenerator {

  /** The namespace of the TPC-H tables inside catalog {@code bench}. */
  static final String NAMESPACE = "bench.tpch";

  private TpchGenerator() {}

  public static void main(String[] args) throws Exception {
    Objects.requireNonNull(args, "args is null");
    if (args.length != 2) {
      throw new IllegalArgumentException(
          "Cannot generate TPC-H data: expected '<warehouse> <scale factor>'");
    }
    SparkSession spark = BenchMain.session("official", args[0]);
    try {
      generate(spark, Double.parseDouble(args[1]));
    } finally {
      spark.stop();
    }
  }

  /**
   * Creates every TPC-H table at scale factor {@code scale} in {@link #NAMESPACE} and prints one
   * {@code GENERATED} line per table.
   */
  static void generate(SparkSession spark, double scale) throws Exception {
    Objects.requireNonNull(spark, "spark is null");
    if (!(scale > 0)) {
      throw new IllegalArgumentException(
          "Cannot generate TPC-H data: scale factor must be positive, got " + scale);
    }
    spark.sql("CREATE NAMESPACE IF NOT EXISTS " + NAMESPACE);
    for (TpchTable<?> table : TpchTable.getTables()) {
      String name = NAMESPACE + "." + table.getTableName();
      int parts = partsFor(table.getTableName(), scale);
      StructType schema = schema(table);
      String tableName = table.getTableName();
      Dataset<Row> rows =
          spark
              .range(0, parts, 1, parts)
              .mapPartitions(
                  (MapPartitionsFunction<Long, Row>)
                      partIds -> generatePart(tableName, scale, parts, partIds),
                  Encoders.row(schema));
      rows.writeTo(name).using("iceberg").create();
      long count = spark.table(name).count();
      System.out.println(
          String.format(Locale.ROOT, "GENERATED %d rows in %s (%d files)", count, name, parts));
    }
  }

  /** One Spark partition per ~750k lineitem rows; small tables are written as one file. */
  private static int partsFor(String table, double scale) {
    return switch (table) {
      case "lineitem" -> Math.max(2, (int) Math.ceil(scale * 8));
      case "orders", "partsupp" -> Math.max(1, (int) Math.ceil(scale * 2));
      default -> 1;
    };
  }

  private static StructType schema(TpchTable<?> table) {
    List<StructField> fields = new ArrayList<>();
    for (TpchColumn<?> column : table.getColumns()) {
      fields.add(DataTypes.createStructField(column.getColumnName(), sparkType(column), true));
    }
    return DataTypes.createStructType(fields);
  }

  private static DataType sparkType(TpchColumn<?> column) {
    return switch (column.getType().getBase()) {
      case IDENTIFIER -> DataTypes.LongType;
      case INTEGER -> DataTypes.IntegerType;
      case DOUBLE -> DataTypes.DoubleType;
      case DATE -> DataTypes.DateType;
      case VARCHAR -> DataTypes.StringType;
    };
  }

  private static Iterator<Row> generatePart(
      String tableName, double scale, int parts, Iterator<Long> partIds) {
    List<Iterator<Row>> iterators = new ArrayList<>();
    while (partIds.hasNext()) {
      int part = (int) (partIds.next() + 1); // the generator counts parts from 1
      iterators.add(rowsOf(TpchTable.getTable(tableName), scale, part, parts));
    }
    return new Iterator<>() {
      private int index = 0;

      @Override
      public boolean hasNext() {
        while (index < iterators.size()) {
          if (iterators.get(index).hasNext()) {
            return true;
          }
          index++;
        }
        return false;
      }

      @Override
      public Row next() {
        if (!hasNext()) {
          throw new java.util.NoSuchElementException("Cannot read TPC-H row: no more rows");
        }
        return iterators.get(index).next();
      }
    };
  }

  private static <E extends TpchEntity> Iterator<Row> rowsOf(
      TpchTable<E> table, double scale, int part, int parts) {
    List<TpchColumn<E>> columns = table.getColumns();
    Iterator<E> entities = table.createGenerator(scale, part, parts).iterator();
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return entities.hasNext();
      }

      @Override
      public Row next() {
        E entity = entities.next();
        Object[] values = new Object[columns.size()];
        for (int i = 0; i < values.length; i++) {
          TpchColumn<E> column = columns.get(i);
          values[i] =
              switch (column.getType().getBase()) {
                case IDENTIFIER -> column.getIdentifier(entity);
                case INTEGER -> column.getInteger(entity);
                case DOUBLE -> column.getDouble(entity);
                case DATE -> java.sql.Date.valueOf(LocalDate.ofEpochDay(column.getDate(entity)));
                case VARCHAR -> column.getString(entity);
              };
        }
        return RowFactory.create(values);
      }
    };
  }
}
