package io.floe.spark.parquet;

import java.util.Arrays;
import org.apache.parquet.column.values.bitpacking.BytePacker;
import org.apache.parquet.column.values.bitpacking.Packer;

/**
 * Decodes Parquet's RLE/bit-packing hybrid encoding (definition levels and dictionary ids) from a
 * byte array into int arrays, a run at a time.
 *
 * <p>Bit-packed groups are unpacked straight from the page's array by Parquet's own packers, eight
 * values per call, with nothing allocated per value or per group.
 */
final class HybridIntDecoder {
  private static final BytePacker[] PACKERS = new BytePacker[33];

  static {
    for (int width = 0; width <= 32; width++) {
      PACKERS[width] = Packer.LITTLE_ENDIAN.newBytePacker(width);
    }
  }

  private final int[] unpacked = new int[8];
  private byte[] data;
  private int position;
  private int end;
  private int bitWidth;
  private int valueBytes;
  private BytePacker packer;
  private boolean repeating;
  private int runLeft;
  private int runValue;
  private int unpackedIndex = 8;
  private String source;

  /**
   * Starts decoding {@code length} bytes of {@code data} from {@code offset}, values {@code
   * bitWidth} bits wide; {@code source} names the column for errors.
   */
  void reset(byte[] data, int offset, int length, int bitWidth, String source) {
    if (bitWidth < 0 || bitWidth > 32) {
      throw new IllegalStateException(
          "Cannot decode " + source + ": invalid bit width " + bitWidth);
    }
    this.data = data;
    this.position = offset;
    this.end = offset + length;
    this.bitWidth = bitWidth;
    this.valueBytes = (bitWidth + 7) / 8;
    this.packer = PACKERS[bitWidth];
    this.runLeft = 0;
    this.unpackedIndex = 8;
    this.source = source;
  }

  /** Decodes the next {@code count} values into {@code out} from {@code outOffset}. */
  void read(int[] out, int outOffset, int count) {
    int done = 0;
    while (done < count) {
      if (runLeft == 0) {
        nextRun();
      }
      int n = Math.min(runLeft, count - done);
      if (repeating) {
        Arrays.fill(out, outOffset + done, outOffset + done + n, runValue);
      } else {
        int i = 0;
        // whole groups go straight into the output; a group cut by the batch goes through a buffer
        while (unpackedIndex == 8 && n - i >= 8 && position + bitWidth <= end) {
          packer.unpack8Values(data, position, out, outOffset + done + i);
          position += bitWidth;
          i += 8;
        }
        for (; i < n; i++) {
          if (unpackedIndex == 8) {
            unpackGroup();
          }
          out[outOffset + done + i] = unpacked[unpackedIndex++];
        }
      }
      runLeft -= n;
      done += n;
    }
  }

  /**
   * Counts how many of the next {@code count} values equal {@code value}, decoding them into {@code
   * out} from {@code outOffset}.
   */
  int readAndCount(int[] out, int outOffset, int count, int value) {
    read(out, outOffset, count);
    int matches = 0;
    for (int i = outOffset; i < outOffset + count; i++) {
      if (out[i] == value) {
        matches++;
      }
    }
    return matches;
  }

  private void nextRun() {
    int header = readVarInt();
    if ((header & 1) == 0) {
      repeating = true;
      runLeft = header >>> 1;
      int value = 0;
      for (int i = 0; i < valueBytes; i++) {
        value |= (byteAt(position++) & 0xFF) << (8 * i);
      }
      runValue = value;
    } else {
      repeating = false;
      runLeft = (header >>> 1) * 8;
      unpackedIndex = 8;
    }
    if (runLeft <= 0) {
      throw new IllegalStateException("Cannot decode " + source + ": empty or oversized run");
    }
  }

  private void unpackGroup() {
    if (position + bitWidth <= end) {
      packer.unpack8Values(data, position, unpacked, 0);
    } else {
      // the page's last group may be cut short; the missing bits are padding
      byte[] padded = new byte[Math.max(bitWidth, 1)];
      System.arraycopy(data, position, padded, 0, Math.max(0, end - position));
      packer.unpack8Values(padded, 0, unpacked, 0);
    }
    position += bitWidth;
    unpackedIndex = 0;
  }

  private int readVarInt() {
    int value = 0;
    int shift = 0;
    while (true) {
      int b = byteAt(position++);
      value |= (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return value;
      }
      shift += 7;
      if (shift > 28) {
        throw new IllegalStateException("Cannot decode " + source + ": malformed run header");
      }
    }
  }

  private int byteAt(int index) {
    if (index >= end) {
      throw new IllegalStateException(
          "Cannot decode " + source + ": encoded values end before the page's value count");
    }
    return data[index];
  }
}
