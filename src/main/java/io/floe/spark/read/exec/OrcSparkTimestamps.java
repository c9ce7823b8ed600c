package io.floe.spark.read.exec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.hadoop.HadoopInputFile;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.mapping.MappedField;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;
import org.apache.orc.OrcFile;
import org.apache.orc.Reader;
import org.apache.orc.RecordReader;
import org.apache.orc.StripeInformation;
import org.apache.orc.TypeDescription;
import org.apache.orc.impl.RecordReaderImpl;

/**
 * The timestamp columns of an ORC file that Spark's own ORC writer wrote (a table imported by
 * {@code snapshot}, {@code migrate} or {@code add_files}), which Iceberg's generic ORC reader does
 * not read as the table column's type, and how to read them right:
 *
 * <ul>
 *   <li>Spark's {@code TIMESTAMP} is an ORC {@code timestamp} (without time zone) holding the
 *       instant as the writer's JVM time zone spells it, which the stripe footers name. Iceberg
 *       reads it as a {@code LocalDateTime} of that spelling in UTC; the instant is that local time
 *       in the writer's zone, as Spark's own reader finds it in a JVM of the same zone.
 *   <li>Spark's {@code TIMESTAMP_NTZ} is an ORC {@code bigint} with the attribute {@code
 *       spark.sql.catalyst.type=timestamp_ntz}, holding microseconds from the epoch of the local
 *       time; Iceberg refuses to read a long as a timestamp. It is read as a long and turned into
 *       the local time.
 * </ul>
 *
 * <p>Carries the projection to read such a file with (those columns of the types the file holds)
 * and turns each record read with it into the values of the table's types. Iceberg's own
 * ORC files store {@code timestamptz} as ORC {@code timestamp with local time zone} and never a
 * timestamp as a long, so their reads are never changed.
 */
final class OrcSparkTimestamps {
  /** The ORC type attribute in which Spark's ORC writer names the Spark type of a column. */
  static final String CATALYST_TYPE_ATTRIBUTE = "spark.sql.catalyst.type";

  private static final String ICEBERG_ID_ATTRIBUTE = "iceberg.id";

  private final Types.StructType type;
  private final Schema projection;
  private final Set<Integer> zoned;
  private final Set<Integer> local;
  private final Set<Integer> enclosing;
  private final ZoneId zone;
  private final String location;
  private final Map<Integer, String> columnNames;

  private OrcSparkTimestamps(
      Types.StructType type, Set<Integer> zoned, Set<Integer> local, Set<Integer> enclosing,
      ZoneId zone, String location, Map<Integer, String> columnNames) {
    this.location = location;
    this.columnNames = columnNames;
    this.type = type;
    this.zoned = zoned;
    this.local = local;
    this.enclosing = enclosing;
    this.zone = zone;
    Map<Integer, Type> readAs = new HashMap<>();
    zoned.forEach(id -> readAs.put(id, Types.TimestampType.withoutZone()));
    local.forEach(id -> readAs.put(id, Types.LongType.get()));
    this.projection = new Schema(retype(type, readAs).asStructType().fields());
  }

  /**
   * Whether an ORC task holds a Spark-written timestamp column its read touches (the read schema,
   * the columns of its equality deletes, or its residual filter), so that it must be read through
   * {@link #of} on the row path: ORC's batch reader would refuse or misread those columns. The
   * file's footer is read only when the read touches a timestamp column.
   */
  static boolean presentIn(ReadSettings settings, FileScanTask task) {
    Schema touched = settings.readSchema();
    for (DeleteFile delete : task.deletes()) {
      if (delete.content() == FileContent.EQUALITY_DELETES) {
        touched = settings.tableSchema();
        break;
      }
    }
    return of(
            settings.io().newInputFile(task.file()),
            settings.tableSchema(),
            touched,
            task.residual(),
            settings.nameMapping(),
            settings.caseSensitive())
        .isPresent();
  }

  /**
   * What reading {@code input} with {@code projection} needs, or empty when the file holds no
   * Spark-written timestamp column of the table (or the read touches no timestamp column at all,
   * then the file is not opened). The file's footer is read for it.
   *
   * @param residual the filter the read would prune stripes by, or null; the file holds such a
   *     column when it names one
   */
  static Optional<OrcSparkTimestamps> of(
      InputFile input,
      Schema tableSchema,
      Schema projection,
      Expression residual,
      NameMapping mapping,
      boolean caseSensitive) {
    Set<Integer> timestamps = timestampIds(tableSchema.asStruct());
    Set<Integer> touched = new HashSet<>(timestampIds(projection.asStruct()));
    if (residual != null) {
      touched.addAll(Binder.boundReferences(tableSchema.asStruct(), List.of(residual), caseSensitive));
    }
    touched.retainAll(timestamps);
    if (touched.isEmpty()) {
      return Optional.empty();
    }
    try (Reader reader = open(input)) {
      Map<Integer, TypeDescription> byId = new HashMap<>();
      index(reader.getSchema(), new ArrayList<>(), mapping, byId);
      Map<Integer, Types.NestedField> fields = TypeUtil.indexById(tableSchema.asStruct());
      Set<Integer> zoned = new TreeSet<>();
      Set<Integer> local = new TreeSet<>();
      for (int id : timestamps) {
        TypeDescription column = byId.get(id);
        if (column == null) {
          continue;
        }
        Types.TimestampType timestamp = (Types.TimestampType) fields.get(id).type();
        if (timestamp.shouldAdjustToUTC()
            && column.getCategory() == TypeDescription.Category.TIMESTAMP) {
          zoned.add(id);
        } else if (!timestamp.shouldAdjustToUTC()
            && column.getCategory() == TypeDescription.Category.LONG
            && "timestamp_ntz".equals(column.getAttributeValue(CATALYST_TYPE_ATTRIBUTE))) {
          local.add(id);
        }
      }
      if (zoned.isEmpty() && local.isEmpty()) {
        return Optional.empty();
      }
      ZoneId zone =
          zoned.isEmpty() ? ZoneOffset.UTC : writerZone(reader, input, tableSchema, zoned);
      Set<Integer> enclosing = new HashSet<>();
      Map<Integer, Integer> parents = TypeUtil.indexParents(projection.asStruct());
      for (int id : union(zoned, local)) {
        for (Integer parent = parents.get(id); parent != null; parent = parents.get(parent)) {
          enclosing.add(parent);
        }
      }
      Map<Integer, String> names = new HashMap<>();
      zoned.forEach(id -> names.put(id, tableSchema.findColumnName(id)));
      return Optional.of(
          new OrcSparkTimestamps(
              projection.asStruct(), zoned, local, enclosing, zone, input.location(), names));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the ORC footer of " + input.location(), e);
    }
  }

  /**
   * The projection to read the file with: its {@code TIMESTAMP} columns as timestamps without time
   * zone (Iceberg's ORC reader refuses an ORC {@code timestamp} for a {@code timestamptz}), its
   * {@code TIMESTAMP_NTZ} columns as longs.
   */
  Schema projection() {
    return projection;
  }

  /** The record read with {@link #projection}, its values turned into the table's types. */
  Record fix(Record record) {
    fixStruct(type, record);
    return record;
  }

  private void fixStruct(Types.StructType struct, Record record) {
    List<Types.NestedField> fields = struct.fields();
    for (int i = 0; i < fields.size(); i++) {
      record.set(i, value(fields.get(i), record.get(i)));
    }
  }

  private Object value(Types.NestedField field, Object value) {
    int id = field.fieldId();
    if (value == null) {
      return null;
    } else if (zoned.contains(id)) {
      return instant(field, (LocalDateTime) value);
    } else if (local.contains(id)) {
      return DateTimeUtil.timestampFromMicros((Long) value);
    } else if (!enclosing.contains(id)) {
      return value;
    }
    Type type = field.type();
    if (type.isStructType()) {
      fixStruct(type.asStructType(), (Record) value);
      return value;
    } else if (type.isListType()) {
      List<Object> list = new ArrayList<>();
      for (Object element : (List<?>) value) {
        list.add(value(type.asListType().fields().get(0), element));
      }
      return list;
    } else if (type.isMapType()) {
      Map<Object, Object> map = new LinkedHashMap<>();
      Types.NestedField key = type.asMapType().fields().get(0);
      Types.NestedField mapValue = type.asMapType().fields().get(1);
      ((Map<?, ?>) value).forEach((k, v) -> map.put(value(key, k), value(mapValue, v)));
      return map;
    }
    return value;
  }

  /**
   * The instant a local time of the writer's zone stands for. In the hour a zone's clocks go back
   * a local time stands for two instants, and the file (as Iceberg's ORC reader gives it) no
   * longer says which: such a value fails the read rather than be read as one of them.
   */
  private OffsetDateTime instant(Types.NestedField field, LocalDateTime local) {
    List<ZoneOffset> offsets = zone.getRules().getValidOffsets(local);
    if (offsets.size() != 1) {
      throw new IllegalStateException(
          "Cannot read " + location + ": its ORC timestamp column " + columnNames.get(field.fieldId())
              + " holds the local time " + local + " of " + zone + ", which stands for "
              + (offsets.isEmpty() ? "no instant" : "two instants (the zone's clocks went back)")
              + "; import such data from Parquet files");
    }
    return local.atOffset(offsets.get(0)).withOffsetSameInstant(ZoneOffset.UTC);
  }

  private static Set<Integer> union(Set<Integer> a, Set<Integer> b) {
    Set<Integer> all = new HashSet<>(a);
    all.addAll(b);
    return all;
  }

  /** The ids of the fields of type {@code timestamp} or {@code timestamptz} (microseconds). */
  private static Set<Integer> timestampIds(Types.StructType struct) {
    Set<Integer> ids = new TreeSet<>();
    TypeUtil.indexById(struct).forEach((id, field) -> {
      if (field.type().typeId() == Type.TypeID.TIMESTAMP) {
        ids.add(id);
      }
    });
    return ids;
  }

  /** The table field id of each ORC column: its {@code iceberg.id}, else by the name mapping. */
  private static void index(
      TypeDescription type, List<String> path, NameMapping mapping, Map<Integer, TypeDescription> byId) {
    if (!path.isEmpty()) {
      String attribute = type.getAttributeValue(ICEBERG_ID_ATTRIBUTE);
      MappedField mapped = attribute == null && mapping != null ? mapping.find(path) : null;
      Integer id = attribute != null ? Integer.valueOf(attribute) : mapped == null ? null : mapped.id();
      if (id != null) {
        byId.put(id, type);
      }
    }
    List<TypeDescription> children = type.getChildren();
    switch (type.getCategory()) {
      case STRUCT -> {
        for (int i = 0; i < children.size(); i++) {
          index(children.get(i), with(path, type.getFieldNames().get(i)), mapping, byId);
        }
      }
      case LIST -> index(children.get(0), with(path, "element"), mapping, byId);
      case MAP -> {
        index(children.get(0), with(path, "key"), mapping, byId);
        index(children.get(1), with(path, "value"), mapping, byId);
      }
      default -> { }
    }
  }

  private static List<String> with(List<String> path, String name) {
    List<String> next = new ArrayList<>(path);
    next.add(name);
    return next;
  }

  /**
   * The time zone the file's writer spelled its timestamps in, as every stripe footer names it;
   * a file whose stripes name different zones, or none, is refused naming the column.
   */
  private static ZoneId writerZone(
      Reader reader, InputFile input, Schema tableSchema, Set<Integer> zoned) throws IOException {
    Set<String> zones = new TreeSet<>();
    boolean unnamed = false;
    List<StripeInformation> stripes = reader.getStripes();
    if (stripes.isEmpty()) {
      return ZoneOffset.UTC;
    }
    try (RecordReader rows = reader.rows()) {
      for (StripeInformation stripe : stripes) {
        var footer = ((RecordReaderImpl) rows).readStripeFooter(stripe);
        if (footer.hasWriterTimezone() && !footer.getWriterTimezone().isEmpty()) {
          zones.add(footer.getWriterTimezone());
        } else {
          unnamed = true;
        }
      }
    }
    if (unnamed || zones.size() != 1) {
      throw new IllegalStateException(
          "Cannot read " + input.location() + ": its ORC timestamp column "
              + tableSchema.findColumnName(zoned.iterator().next()) + " holds local times of "
              + (unnamed ? "a writer time zone the file does not name" : "the time zones " + zones)
              + ", so the instants they stand for are unknown");
    }
    return ZoneId.of(zones.iterator().next());
  }

  private static Reader open(InputFile input) throws IOException {
    Configuration conf;
    FileSystem fs;
    if (input instanceof HadoopInputFile hadoop) {
      conf = hadoop.getConf();
      fs = hadoop.getFileSystem();
    } else {
      conf = new Configuration(false);
      fs = new InputFileSystem(input, conf);
    }
    return OrcFile.createReader(
        new Path(input.location()),
        OrcFile.readerOptions(conf).filesystem(fs).maxLength(input.getLength()));
  }

  /** The type with the fields {@code readAs} names (at any depth) of the type it gives, ids kept. */
  private static Type retype(Type type, Map<Integer, Type> ids) {
    if (type.isStructType()) {
      List<Types.NestedField> fields = new ArrayList<>();
      for (Types.NestedField field : type.asStructType().fields()) {
        fields.add(retype(field, ids));
      }
      return Types.StructType.of(fields);
    } else if (type.isListType()) {
      Types.NestedField element = retype(type.asListType().fields().get(0), ids);
      return element.isOptional()
          ? Types.ListType.ofOptional(element.fieldId(), element.type())
          : Types.ListType.ofRequired(element.fieldId(), element.type());
    } else if (type.isMapType()) {
      Types.NestedField key = retype(type.asMapType().fields().get(0), ids);
      Types.NestedField value = retype(type.asMapType().fields().get(1), ids);
      return value.isOptional()
          ? Types.MapType.ofOptional(key.fieldId(), value.fieldId(), key.type(), value.type())
          : Types.MapType.ofRequired(key.fieldId(), value.fieldId(), key.type(), value.type());
    }
    return type;
  }

  private static Types.NestedField retype(Types.NestedField field, Map<Integer, Type> ids) {
    Type type = ids.containsKey(field.fieldId()) ? ids.get(field.fieldId()) : retype(field.type(), ids);
    return Types.NestedField.from(field).ofType(type).build();
  }
}
