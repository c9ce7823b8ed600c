package io.floe.spark.catalog;

import java.util.Objects;
import org.apache.spark.sql.connector.catalog.MetadataColumn;
import org.apache.spark.sql.types.DataType;

/** One of Iceberg's metadata columns ({@code _file}, {@code _pos}, ...) as Spark sees it. */
final class FloeMetadataColumn implements MetadataColumn {
  private final String name;
  private final DataType type;
  private final boolean nullable;

  FloeMetadataColumn(String name, DataType type, boolean nullable) {
    this.name = Objects.requireNonNull(name, "name is null");
    this.type = Objects.requireNonNull(type, "type is null");
    this.nullable = nullable;
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
