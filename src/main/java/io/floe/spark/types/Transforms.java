package io.floe.spark.types;

import io.floe.spark.util.Identifiers;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.transforms.PartitionSpecVisitor;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.Transform;

/**
 * Converts table partitioning between Spark's {@link Transform}s and Iceberg's {@link
 * PartitionSpec}.
 *
 * <p>Spark to Iceberg accepts what Spark's parser produces for {@code PARTITIONED BY}: {@code
 * identity}, {@code bucket(n, col)}, {@code truncate(col, width)} (and {@code truncate(width,
 * col)}), {@code years}, {@code months}, {@code days}, {@code hours}, and the singular aliases
 * {@code year}, {@code month}, {@code day}, {@code date}, {@code hour}. Transform names are matched
 * case-insensitively; nested columns are given by their path. A column is matched by exact name,
 * or else by its only case-insensitive match. Partition fields get Iceberg's default names. Every
 * failure is an {@link IllegalArgumentException} that names the Spark transform.
 *
 * <p>Iceberg to Spark is the reverse; void transforms are left out, and transforms Floe does not
 * know are passed to Spark by name.
 */
public final class Transforms {
  private Transforms() {}

  /**
   * Builds the Iceberg partition spec for a Spark table partitioning.
   *
   * @throws IllegalArgumentException if a transform is not supported, has invalid arguments,
   *     refers to a column not in the schema, cannot be applied to its column's type, or is
   *     redundant with an earlier one
   */
  public static PartitionSpec toIcebergSpec(Schema schema, Transform[] partitioning) {
    Objects.requireNonNull(schema, "schema is null");
    Objects.requireNonNull(partitioning, "partitioning is null");
    PartitionSpec.Builder builder = PartitionSpec.builderFor(schema);
    for (Transform transform : partitioning) {
      Objects.requireNonNull(transform, "partitioning contains a null transform");
      add(builder, schema, transform);
    }
    return builder.build();
  }

  /** Describes an Iceberg partition spec as Spark transforms, in the order of the spec's fields. */
  public static Transform[] toSpark(PartitionSpec spec) {
    Objects.requireNonNull(spec, "spec is null");
    List<Transform> transforms = PartitionSpecVisitor.visit(spec, new ToSpark(spec.schema()));
    return transforms.stream().filter(Objects::nonNull).toArray(Transform[]::new);
  }

  private static void add(PartitionSpec.Builder builder, Schema schema, Transform transform) {
    Kind kind = Kind.of(transform.name());
    if (kind == null) {
      throw new IllegalArgumentException(
          String.format(
              "Cannot partition by %s: unsupported transform '%s'",
              describe(transform), transform.name()));
    }

    Arguments args = Arguments.of(transform);
    switch (kind) {
      case BUCKET -> args.expectColumnAndNumber(transform, "number of buckets");
      case TRUNCATE -> args.expectColumnAndNumber(transform, "width");
      default -> args.expectColumnOnly(transform);
    }

    Types.NestedField column = resolve(schema, args.column.fieldNames(), transform);
    org.apache.iceberg.transforms.Transform<?, ?> icebergTransform = kind.toIceberg(args.number);
    if (!icebergTransform.canTransform(column.type())) {
      throw new IllegalArgumentException(
          String.format(
              "Cannot partition by %s: transform %s cannot be applied to column '%s' of type %s",
              describe(transform),
              icebergTransform,
              String.join(".", args.column.fieldNames()),
              column.type()));
    }

    String sourceName = schema.findColumnName(column.fieldId());
    try {
      switch (kind) {
        case IDENTITY -> builder.identity(sourceName);
        case BUCKET -> builder.bucket(sourceName, args.number);
        case TRUNCATE -> builder.truncate(sourceName, args.number);
        case YEAR -> builder.year(sourceName);
        case MONTH -> builder.month(sourceName);
        case DAY -> builder.day(sourceName);
        case HOUR -> builder.hour(sourceName);
      }
    } catch (IllegalArgumentException e) {
      // e.g. a redundant partition such as days(ts) after hours(ts)
      throw new IllegalArgumentException(
          String.format("Cannot partition by %s: %s", describe(transform), e.getMessage()), e);
    }
  }

  /** The Iceberg transforms Spark partitioning can name. */
  private enum Kind {
    IDENTITY,
    BUCKET,
    TRUNCATE,
    YEAR,
    MONTH,
    DAY,
    HOUR;

    /** The kind for a Spark transform name or alias, or null if there is none. */
    static Kind of(String sparkName) {
      return switch (sparkName.toLowerCase(Locale.ROOT)) {
        case "identity" -> IDENTITY;
        case "bucket" -> BUCKET;
        case "truncate" -> TRUNCATE;
        case "years", "year" -> YEAR;
        case "months", "month" -> MONTH;
        case "days", "day", "date" -> DAY;
        case "hours", "hour" -> HOUR;
        default -> null;
      };
    }

    org.apache.iceberg.transforms.Transform<?, ?> toIceberg(int number) {
      return switch (this) {
        case IDENTITY -> org.apache.iceberg.transforms.Transforms.identity();
        case BUCKET -> org.apache.iceberg.transforms.Transforms.bucket(number);
        case TRUNCATE -> org.apache.iceberg.transforms.Transforms.truncate(number);
        case YEAR -> org.apache.iceberg.transforms.Transforms.year();
        case MONTH -> org.apache.iceberg.transforms.Transforms.month();
        case DAY -> org.apache.iceberg.transforms.Transforms.day();
        case HOUR -> org.apache.iceberg.transforms.Transforms.hour();
      };
    }
  }

  /**
   * Describes a transform as {@code name(arguments)}; Spark's own {@code describe()} leaves the name
   * out for identity.
   */
  private static String describe(Transform transform) {
    return Arrays.stream(transform.arguments())
        .map(Expression::describe)
        .collect(Collectors.joining(", ", transform.name() + "(", ")"));
  }

  /** Finds a column by its path parts, through nested structs only. */
  private static Types.NestedField resolve(Schema schema, String[] parts, Transform transform) {
    Types.StructType struct = schema.asStruct();
    Types.NestedField field = null;
    for (String part : parts) {
      field = struct == null ? null : find(struct, part);
      if (field == null) {
        throw new IllegalArgumentException(
            String.format(
                "Cannot partition by %s: column '%s' not found in the table schema",
                describe(transform), String.join(".", parts)));
      }
      struct = field.type().isStructType() ? field.type().asStructType() : null;
    }
    return field;
  }

  private static Types.NestedField find(Types.StructType struct, String name) {
    Types.NestedField exact = struct.field(name);
    if (exact != null) {
      return exact;
    }
    List<Types.NestedField> matches =
        struct.fields().stream()
            .filter(field -> field.name().equalsIgnoreCase(name))
            .collect(Collectors.toList());
    return matches.size() == 1 ? matches.get(0) : null;
  }

  /** The column and the optional integer argument of a Spark transform, in either order. */
  private static final class Arguments {
    private NamedReference column;
    private int number;
    private boolean hasNumber;
    private boolean invalid;

    static Arguments of(Transform transform) {
      Arguments args = new Arguments();
      for (Expression arg : transform.arguments()) {
        if (arg instanceof NamedReference ref && args.column == null) {
          args.column = ref;
        } else if (arg instanceof Literal<?> literal
            && !args.hasNumber
            && isInt(literal.value())) {
          args.hasNumber = true;
          args.number = ((Number) literal.value()).intValue();
        } else {
          args.invalid = true;
        }
      }
      return args;
    }

    void expectColumnOnly(Transform transform) {
      if (invalid || column == null || hasNumber) {
        throw invalidArguments(transform, "expected a single column");
      }
    }

    void expectColumnAndNumber(Transform transform, String numberName) {
      if (invalid || column == null || !hasNumber) {
        throw invalidArguments(transform, "expected a column and an integer " + numberName);
      }
      if (number <= 0) {
        throw invalidArguments(transform, "the " + numberName + " must be positive");
      }
    }

    private static IllegalArgumentException invalidArguments(Transform transform, String why) {
      return new IllegalArgumentException(
          String.format("Cannot partition by %s: %s", describe(transform), why));
    }

    private static boolean isInt(Object value) {
      if (value instanceof Long longValue) {
        return longValue == longValue.intValue();
      }
      return value instanceof Integer || value instanceof Short || value instanceof Byte;
    }
  }

  /** Turns each partition field into a Spark transform; void fields become null. */
  private static final class ToSpark implements PartitionSpecVisitor<Transform> {
    private final Schema schema;
    private final Map<Integer, Integer> parents;

    ToSpark(Schema schema) {
      this.schema = schema;
      this.parents = TypeUtil.indexParents(schema.asStruct());
    }

    @Override
    public Transform identity(String sourceName, int sourceId) {
      return Expressions.identity(column(sourceId));
    }

    @Override
    public Transform bucket(String sourceName, int sourceId, int numBuckets) {
      return Expressions.bucket(numBuckets, column(sourceId));
    }

    @Override
    public Transform truncate(String sourceName, int sourceId, int width) {
      return Expressions.apply(
          "truncate", Expressions.column(column(sourceId)), Expressions.literal(width));
    }

    @Override
    public Transform year(String sourceName, int sourceId) {
      return Expressions.years(column(sourceId));
    }

    @Override
    public Transform month(String sourceName, int sourceId) {
      return Expressions.months(column(sourceId));
    }

    @Override
    public Transform day(String sourceName, int sourceId) {
      return Expressions.days(column(sourceId));
    }

    @Override
    public Transform hour(String sourceName, int sourceId) {
      return Expressions.hours(column(sourceId));
    }

    @Override
    public Transform alwaysNull(int fieldId, String sourceName, int sourceId) {
      return null;
    }

    @Override
    public Transform unknown(int fieldId, String sourceName, int sourceId, String transform) {
      return Expressions.apply(transform, Expressions.column(column(sourceId)));
    }

    /**
     * The source column as a quoted multi-part name for {@link Expressions#column}, so that names
     * containing dots or backticks survive Spark's identifier parser.
     */
    private String column(int sourceId) {
      String path = Identifiers.quotedPath(schema, parents, sourceId);
      if (path == null) {
        throw new IllegalArgumentException(
            String.format(
                "Cannot convert partition spec to Spark: source column id %d not in the schema",
                sourceId));
      }
      return path;
    }
  }
}
