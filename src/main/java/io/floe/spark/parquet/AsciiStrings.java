package io.floe.spark.parquet;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import org.apache.spark.unsafe.types.UTF8String;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a {@code UTF8String} of ASCII bytes its character count, which Spark otherwise works out
 * the first time an expression asks for it ({@code length}, {@code substring} from the end, {@code
 * lpad}, ...).
 *
 * <p>Spark counts characters one byte after another, each step waiting for the byte before to say
 * where the next character starts: about 4 ns a byte, which made {@code max(length(s))} over
 * 100-byte strings spend 84% of its time counting. Floe checks the bytes of a batch's plain strings
 * eight at a time as it decodes them ({@link #highBits}); when all are ASCII, every string built
 * over them is given its byte count as its character count, which is what Spark's count gives for
 * ASCII bytes. The count is a private field of {@code UTF8String}, set through a {@link
 * VarHandle}; where Spark's class does not let it be reached, nothing is set and Spark counts as
 * before.
 */
final class AsciiStrings {
  private static final Logger LOG = LoggerFactory.getLogger(AsciiStrings.class);
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  /** The high bit of every byte of a word, set in a word's OR when a byte is not ASCII. */
  static final long HIGH_BITS = 0x8080808080808080L;

  private static final VarHandle NUM_CHARS = numChars();

  private AsciiStrings() {}

  private static VarHandle numChars() {
    try {
      return MethodHandles.privateLookupIn(UTF8String.class, MethodHandles.lookup())
          .findVarHandle(UTF8String.class, "numChars", int.class);
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.debug("Spark counts the characters of every string itself: {}", e.toString());
      return null;
    }
  }

  /** Whether character counts can be given at all. */
  static boolean available() {
    return NUM_CHARS != null;
  }

  /**
   * The OR of the {@code length} bytes from {@code offset} of {@code bytes}, as words: its {@link
   * #HIGH_BITS} are clear when every byte is ASCII.
   */
  static long highBits(byte[] bytes, int offset, int length) {
    long bits = 0;
    int end = offset + length;
    int i = offset;
    for (; i + Long.BYTES <= end; i += Long.BYTES) {
      bits |= (long) LONGS.get(bytes, i);
    }
    for (; i < end; i++) {
      bits |= bytes[i] & 0xFF;
    }
    return bits;
  }

  /** Gives {@code value}, whose bytes are all ASCII, its character count: its byte count. */
  static UTF8String counted(UTF8String value) {
    NUM_CHARS.set(value, value.numBytes());
    return value;
  }
}
