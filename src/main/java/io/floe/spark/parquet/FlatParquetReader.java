package io.floe.spark.parquet;

import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.schema.LogicalTypeAnnotation.DateLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DecimalLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.IntLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.StringLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimestampLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat;
import org.apache.spark.sql.execution.datasources.parquet.ParquetUtils;
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Floe's own Parquet decoder for files whose requested columns are all flat: top-level, not
 * repeated, of a type stored as is (booleans, ints, longs, floats, doubles, dates, microsecond
 * timestamps, strings, binary and fixed, decimals of up to 18 digits in INT32/INT64 and of more in
 * bytes), in PLAIN or dictionary encodings. Any other file is left to Spark's vectorized reader.
 *
 * <p>It exists because Spark's reader slices a {@code ByteBuffer} for every plain string and every
 * eight dictionary ids, and builds a new {@code UTF8String} for every dictionary-encoded string it
 * hands out; on this kind of table those allocations were the largest cost of a scan. Columns are
 * matched by Parquet field id, like Spark's reader is told to; row groups are those of the footer
 * it is given; {@code _pos} comes from each row group's first row index. A batch never spans row
 * groups.
 */
public final class FlatParquetReader implements BatchDecoder {
  private static final Set<Encoding> ENCODINGS =
      EnumSet.of(
          Encoding.PLAIN,
          Encoding.PLAIN_DICTIONARY,
          Encoding.RLE_DICTIONARY,
          Encoding.RLE,
          Encoding.BIT_PACKED);

  private final ParquetFileReader reader;
  private final FlatColumnDecoder[] decoders;
  private final OnHeapColumnVector rowIndex;
  private final ColumnarBatch batch;
  private final int capacity;
  private final String location;
  private PageReadStore rowGroup;
  private long rowsLeftInGroup;
  private long nextRowIndex;

  private FlatParquetReader(
      ParquetFileReader reader,
      FlatColumnDecoder[] decoders,
      OnHeapColumnVector rowIndex,
      ColumnVector[] vectors,
      int capacity,
      String location) {
    this.reader = reader;
    this.decoders = decoders;
    this.rowIndex = rowIndex;
    this.batch = new ColumnarBatch(vectors);
    this.capacity = capacity;
    this.location = location;
  }

  /**
   * A reader of the footer's row groups into batches of {@code sparkSchema}, or null when a
   * requested column is not flat, not in the file, or stored in a way this reader does not decode.
   */
  public static FlatParquetReader openIfFlat(
      InputFile file,
      SeekableInputStream stream,
      ParquetMetadata footer,
      StructType sparkSchema,
      int capacity,
      Configuration conf,
      Path path,
      ReadBuffers buffers) throws IOException {
    MessageType fileSchema = footer.getFileMetaData().getSchema();
    List<Type> requested = new ArrayList<>();
    List<FlatColumnDecoder.Kind> kinds = new ArrayList<>();
    int rowIndexAt = -1;
    StructField[] fields = sparkSchema.fields();
    for (int i = 0; i < fields.length; i++) {
      StructField field = fields[i];
      if (field.name().equals(ParquetFileFormat.ROW_INDEX_TEMPORARY_COLUMN_NAME())) {
        rowIndexAt = i;
        continue;
      }
      Type column = columnWithId(fileSchema, field);
      FlatColumnDecoder.Kind kind =
          column != null && column.isPrimitive() && !column.isRepetition(Type.Repetition.REPEATED)
              ? kindOf(field.dataType(), column.asPrimitiveType())
              : null;
      if (kind == null) {
        return null;
      }
      requested.add(column);
      kinds.add(kind);
    }
    if (requested.isEmpty()) {
      return null;
    }
    MessageType projection = new MessageType(fileSchema.getName(), requested);
    List<ColumnDescriptor> descriptors = projection.getColumns();
    if (!encodingsDecodable(footer.getBlocks(), descriptors)) {
      return null;
    }

    String location = path.toString();
    ColumnVector[] vectors = new ColumnVector[fields.length];
    FlatColumnDecoder[] decoders = new FlatColumnDecoder[descriptors.size()];
    OnHeapColumnVector rowIndex = null;
    int next = 0;
    for (int i = 0; i < fields.length; i++) {
      if (i == rowIndexAt) {
        rowIndex = new OnHeapColumnVector(capacity, DataTypes.LongType);
        vectors[i] = rowIndex;
        continue;
      }
      ColumnDescriptor descriptor = descriptors.get(next);
      decoders[next] =
          new FlatColumnDecoder(
              descriptor,
              kinds.get(next),
              fields[i].dataType(),
              capacity,
              String.join(".", descriptor.getPath()) + " of " + location,
              buffers.pages());
      vectors[i] = decoders[next].vector();
      next++;
    }
    ParquetFileReader reader =
        new ParquetFileReader(
            file,
            footer,
            HadoopReadOptions.builder(conf, path)
                .withCodecFactory(new PageDecompressors(conf, buffers.pages()))
                .withAllocator(buffers.rowGroups())
                .build(),
            stream);
    reader.setRequestedSchema(projection);
    return new FlatParquetReader(reader, decoders, rowIndex, vectors, capacity, location);
  }

  private static Type columnWithId(MessageType fileSchema, StructField field) {
    if (!field.metadata().contains(ParquetUtils.FIELD_ID_METADATA_KEY())) {
      return null;
    }
    long id = field.metadata().getLong(ParquetUtils.FIELD_ID_METADATA_KEY());
    Type found = null;
    for (Type column : fileSchema.getFields()) {
      if (column.getId() != null && column.getId().intValue() == id) {
        if (found != null) {
          return null;
        }
        found = column;
      }
    }
    return found;
  }

  /** How a column of Spark type {@code type} is decoded from {@code file}; null when it is not. */
  static FlatColumnDecoder.Kind kindOf(DataType type, PrimitiveType file) {
    PrimitiveTypeName physical = file.getPrimitiveTypeName();
    LogicalTypeAnnotation logical = file.getLogicalTypeAnnotation();
    if (type == DataTypes.BooleanType) {
      return physical == PrimitiveTypeName.BOOLEAN && logical == null
          ? FlatColumnDecoder.Kind.BOOLEAN
          : null;
    } else if (type == DataTypes.IntegerType) {
      return physical == PrimitiveTypeName.INT32 && plainInteger(logical, 32)
          ? FlatColumnDecoder.Kind.INT
          : null;
    } else if (type instanceof DateType) {
      return physical == PrimitiveTypeName.INT32 && logical instanceof DateLogicalTypeAnnotation
          ? FlatColumnDecoder.Kind.INT
          : null;
    } else if (type == DataTypes.LongType) {
      return physical == PrimitiveTypeName.INT64 && plainInteger(logical, 64)
          ? FlatColumnDecoder.Kind.LONG
          : null;
    } else if (type == DataTypes.FloatType) {
      return physical == PrimitiveTypeName.FLOAT && logical == null
          ? FlatColumnDecoder.Kind.FLOAT
          : null;
    } else if (type == DataTypes.DoubleType) {
      return physical == PrimitiveTypeName.DOUBLE && logical == null
          ? FlatColumnDecoder.Kind.DOUBLE
          : null;
    } else if (type instanceof StringType) {
      return physical == PrimitiveTypeName.BINARY && logical instanceof StringLogicalTypeAnnotation
          ? FlatColumnDecoder.Kind.BYTES
          : null;
    } else if (type == DataTypes.BinaryType) {
      // Iceberg's binary and fixed; a UUID, also fixed, is a string in Spark and left to its reader
      if (logical != null) {
        return null;
      }
      return physical == PrimitiveTypeName.BINARY
          ? FlatColumnDecoder.Kind.BYTES
          : physical == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY ? FlatColumnDecoder.Kind.FIXED : null;
    } else if (type == DataTypes.TimestampType || type == DataTypes.TimestampNTZType) {
      boolean utc = type == DataTypes.TimestampType;
      return physical == PrimitiveTypeName.INT64
              && logical instanceof TimestampLogicalTypeAnnotation timestamp
              && timestamp.getUnit() == TimeUnit.MICROS
              && timestamp.isAdjustedToUTC() == utc
          ? FlatColumnDecoder.Kind.LONG
          : null;
    } else if (type instanceof DecimalType decimal
        && logical instanceof DecimalLogicalTypeAnnotation stored
        && stored.getPrecision() == decimal.precision()
        && stored.getScale() == decimal.scale()) {
      // Spark keeps up to 9 digits in an int vector and up to 18 in a long one
      if (decimal.precision() <= 9 && physical == PrimitiveTypeName.INT32) {
        return FlatColumnDecoder.Kind.INT;
      }
      if (decimal.precision() > 9
          && decimal.precision() <= 18
          && physical == PrimitiveTypeName.INT64) {
        return FlatColumnDecoder.Kind.LONG;
      }
      // and beyond 18 digits in bytes, as Spark's own vector keeps them
      if (decimal.precision() > 18 && physical == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY) {
        return FlatColumnDecoder.Kind.FIXED;
      }
      if (decimal.precision() > 18 && physical == PrimitiveTypeName.BINARY) {
        return FlatColumnDecoder.Kind.BYTES;
      }
    }
    return null;
  }

  private static boolean plainInteger(LogicalTypeAnnotation logical, int bits) {
    return logical == null
        || (logical instanceof IntLogicalTypeAnnotation integer
            && integer.isSigned()
            && integer.getBitWidth() == bits);
  }

  private static boolean encodingsDecodable(
      List<BlockMetaData> blocks, List<ColumnDescriptor> descriptors) {
    for (BlockMetaData block : blocks) {
      for (ColumnChunkMetaData chunk : block.getColumns()) {
        for (ColumnDescriptor descriptor : descriptors) {
          if (chunk.getPath().equals(ColumnPath.get(descriptor.getPath()))
              && !ENCODINGS.containsAll(chunk.getEncodings())) {
            return false;
          }
        }
      }
    }
    return true;
  }

  @Override
  public ColumnarBatch resultBatch() {
    return batch;
  }

  @Override
  public boolean nextBatch() throws IOException {
    while (rowsLeftInGroup == 0) {
      if (!nextRowGroup()) {
        return false;
      }
    }
    int rows = (int) Math.min(capacity, rowsLeftInGroup);
    for (FlatColumnDecoder decoder : decoders) {
      decoder.readBatch(rows);
    }
    if (rowIndex != null) {
      for (int i = 0; i < rows; i++) {
        rowIndex.putLong(i, nextRowIndex + i);
      }
    }
    nextRowIndex += rows;
    rowsLeftInGroup -= rows;
    batch.setNumRows(rows);
    return true;
  }

  private boolean nextRowGroup() throws IOException {
    if (rowGroup != null) {
      rowGroup.close();
      rowGroup = null;
    }
    PageReadStore next = reader.readNextRowGroup();
    if (next == null) {
      return false;
    }
    rowGroup = next;
    rowsLeftInGroup = next.getRowCount();
    if (rowIndex != null) {
      nextRowIndex =
          next.getRowIndexOffset()
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          "Cannot read row positions of " + location + ": no row index offset"));
    }
    for (int i = 0; i < decoders.length; i++) {
      decoders[i].startRowGroup(next.getPageReader(decoders[i].descriptor()));
    }
    return true;
  }

  @Override
  public void close() throws IOException {
    // the last batch is done: its pages may hold the pages of the partition's next file
    for (FlatColumnDecoder decoder : decoders) {
      decoder.release();
    }
    try {
      if (rowGroup != null) {
        rowGroup.close();
      }
    } finally {
      try {
        reader.close();
      } finally {
        batch.close();
      }
    }
  }
}
