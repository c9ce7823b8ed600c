package io.floe.spark.orc;

import org.apache.orc.storage.ql.exec.vector.StructColumnVector;
import org.apache.spark.sql.types.DataType;

/** A struct from ORC's struct vector: one adapter per field, row for row with the struct. */
final class OrcStructVector extends OrcVector {
  private final OrcVector[] fields;

  OrcStructVector(DataType type, StructColumnVector struct, OrcVector[] fields) {
    super(type, struct);
    this.fields = fields;
  }

  @Override
  public void setNumRows(int rows) {
    super.setNumRows(rows);
    for (OrcVector field : fields) {
      field.setNumRows(rows);
    }
  }

  @Override
  public OrcVector getChild(int ordinal) {
    // ORC marks a struct vector repeating only when every row is NULL, so the fields are never
    // read through a repeated row
    return fields[ordinal];
  }
}
