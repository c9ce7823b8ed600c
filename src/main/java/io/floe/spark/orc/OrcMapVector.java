package io.floe.spark.orc;

import org.apache.orc.storage.ql.exec.vector.MapColumnVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ColumnarMap;

/** Maps from ORC's map vector: row {@code i} is a run of the key and value vectors. */
final class OrcMapVector extends OrcVector {
  private final MapColumnVector map;
  private final OrcVector keys;
  private final OrcVector values;

  OrcMapVector(DataType type, MapColumnVector map, OrcVector keys, OrcVector values) {
    super(type, map);
    this.map = map;
    this.keys = keys;
    this.values = values;
  }

  @Override
  public void setNumRows(int rows) {
    super.setNumRows(rows);
    keys.setNumRows(map.childCount);
    values.setNumRows(map.childCount);
  }

  @Override
  public ColumnarMap getMap(int rowId) {
    int row = row(rowId);
    return new ColumnarMap(keys, values, (int) map.offsets[row], (int) map.lengths[row]);
  }
}
