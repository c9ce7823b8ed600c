package io.floe.spark.orc;

import java.util.Arrays;
import org.apache.orc.storage.ql.exec.vector.BytesColumnVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Strings, binary and fixed values from ORC's bytes vector: each row is a slice of a buffer ORC
 * owns. Strings point into that buffer (valid until the reader reads on, as Spark's own vectors);
 * binary values are copied, since Spark may keep the array.
 */
final class OrcBytesVector extends OrcVector {
  private final BytesColumnVector bytes;

  OrcBytesVector(DataType type, BytesColumnVector bytes) {
    super(type, bytes);
    this.bytes = bytes;
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    int row = row(rowId);
    return UTF8String.fromBytes(bytes.vector[row], bytes.start[row], bytes.length[row]);
  }

  @Override
  public byte[] getBinary(int rowId) {
    int row = row(rowId);
    int start = bytes.start[row];
    return Arrays.copyOfRange(bytes.vector[row], start, start + bytes.length[row]);
  }
}
