package io.floe.spark.catalog;

import java.util.Objects;
import org.apache.spark.sql.connector.catalog.MetadataColumn;
import org.apache.spark.sql.types.DataType;

/**
 * One of Iceberg's metadata columns ({@code _file}, {@code _pos}, ...) as Spark sees it, with the
 * flags that tell Spark's row-level operations which values to hand back to the writer.
 */
final class FloeMetadataColumn implements MetadataColumn {
  private final String name;
  private final DataType type;
  private final boolean nullable;
  private final String metadataJson;

  FloeMetadataColumn(String name, DataType type, boolean nullable) {
    this(name, type, nullable, null);
  }

  /**
   * @param metadataJson Spark's column metadata, or null for Spark's defaults
   */
  private FloeMetadataColumn(String name, DataType type, boolean nullable, String metadataJson) {
    this.name = Objects.requireNonNull(name, "name is null");
    this.type = Objects.requireNonNull(type, "type is null");
    this.nullable = nullable;
    this.metadataJson = metadataJson;
  }

  /**
   * A column whose value a row-level operation keeps, or sets to NULL, as the flags say: for
   * deleted rows of a delta, for updated rows, and for the new version of a row an update split
   * into a delete and an insert.
   */
  static FloeMetadataColumn preserving(
      String name, DataType type, boolean onDelete, boolean onUpdate, boolean onReinsert) {
    String json =
        "{\"" + PRESERVE_ON_DELETE + "\":" + onDelete + ",\"" + PRESERVE_ON_UPDATE + "\":"
            + onUpdate + ",\"" + PRESERVE_ON_REINSERT + "\":" + onReinsert + "}";
    return new FloeMetadataColumn(name, type, true, json);
  }

  @Override
  public String metadataInJSON() {
    return metadataJson;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public DataType dataType() {
    return type;
  }

  @Override
  public boolean isNullable() {
    return nullable;
  }
}
