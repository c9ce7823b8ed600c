package io.floe.spark.orc;

import org.apache.orc.storage.ql.exec.vector.ListColumnVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ColumnarArray;

/** Arrays from ORC's list vector: row {@code i} is a run of the element vector. */
final class OrcListVector extends OrcVector {
  private final ListColumnVector list;
  private final OrcVector elements;

  OrcListVector(DataType type, ListColumnVector list, OrcVector elements) {
    super(type, list);
    this.list = list;
    this.elements = elements;
  }

  @Override
  public void setNumRows(int rows) {
    super.setNumRows(rows);
    elements.setNumRows(list.childCount);
  }

  @Override
  public ColumnarArray getArray(int rowId) {
    int row = row(rowId);
    return new ColumnarArray(elements, (int) list.offsets[row], (int) list.lengths[row]);
  }
}
