package io.floe.spark.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.luben.zstd.Zstd;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputDecompressor;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.xerial.snappy.Snappy;

/**
 * The page decompressors of Floe's decoder give exactly the bytes Parquet's own compressors put in,
 * wherever the page's bytes lie, and refuse a page whose size is not the one its header gives.
 */
class PageDecompressorsTest {
  private final PageBuffers buffers = new PageBuffers();
  private final PageDecompressors codecs = new PageDecompressors(new Configuration(), buffers);

  @AfterEach
  void release() {
    codecs.release();
  }

  @ParameterizedTest
  @EnumSource(
      value = CompressionCodecName.class,
      names = {"ZSTD", "SNAPPY", "GZIP", "UNCOMPRESSED"})
  void pagesCompressedByParquetDecompressToTheirBytes(CompressionCodecName codec)
      throws IOException {
    for (byte[] page : new byte[][] {page(1 << 20, 1), page(100, 2), new byte[0]}) {
      BytesInputCompressor compressor = codecs.getCompressor(codec);
      byte[] compressed = compressor.compress(BytesInput.from(page)).toByteArray();
      BytesInputDecompressor decompressor = codecs.getDecompressor(codec);

      assertThat(decompressor.decompress(BytesInput.from(compressed), page.length).toByteArray())
          .isEqualTo(page);
      // a page inside a larger buffer, as in a column chunk read at once
      byte[] chunk = new byte[compressed.length + 20];
      System.arraycopy(compressed, 0, chunk, 7, compressed.length);
      ByteBuffer slice = ByteBuffer.wrap(chunk, 7, compressed.length).slice();
      assertThat(decompressor.decompress(BytesInput.from(slice), page.length).toByteArray())
          .isEqualTo(page);
      // and off the heap
      ByteBuffer direct = ByteBuffer.allocateDirect(compressed.length).put(compressed).flip();
      assertThat(decompressor.decompress(BytesInput.from(direct), page.length).toByteArray())
          .isEqualTo(page);
    }
  }

  @Test
  void aZstdPageOfSeveralFramesDecompressesEveryFrame() throws IOException {
    byte[] first = page(5000, 3);
    byte[] second = "the second frame".getBytes(StandardCharsets.UTF_8);
    byte[] a = Zstd.compress(first);
    byte[] b = Zstd.compress(second);
    byte[] twoFrames = new byte[a.length + b.length];
    System.arraycopy(a, 0, twoFrames, 0, a.length);
    System.arraycopy(b, 0, twoFrames, a.length, b.length);

    byte[] out =
        codecs
            .getDecompressor(CompressionCodecName.ZSTD)
            .decompress(BytesInput.from(twoFrames), first.length + second.length)
            .toByteArray();

    assertThat(out).startsWith(first).endsWith(second);
  }

  @Test
  void aPageShorterThanItsHeaderSaysFailsNamingTheSizes() {
    byte[] page = page(1000, 4);
    BytesInput zstd = BytesInput.from(Zstd.compress(page));

    assertThatThrownBy(
            () -> codecs.getDecompressor(CompressionCodecName.ZSTD).decompress(zstd, 1001))
        .isInstanceOf(IOException.class)
        .hasMessage("Cannot decompress a ZSTD page: it holds 1000 bytes, its header says 1001");
    assertThatThrownBy(
            () -> codecs.getDecompressor(CompressionCodecName.ZSTD).decompress(zstd, 999))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("Cannot decompress a ZSTD page: ");
  }

  @Test
  void aSnappyPageOfAnotherSizeFails() throws IOException {
    BytesInput snappy = BytesInput.from(Snappy.compress(page(300, 5)));

    assertThatThrownBy(
            () -> codecs.getDecompressor(CompressionCodecName.SNAPPY).decompress(snappy, 301))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("Cannot decompress a SNAPPY page");
  }

  @Test
  void corruptZstdBytesFailNamingTheCodec() {
    BytesInput garbage = BytesInput.from(page(64, 6));

    assertThatThrownBy(
            () -> codecs.getDecompressor(CompressionCodecName.ZSTD).decompress(garbage, 64))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("Cannot decompress a ZSTD page: ");
  }

  @ParameterizedTest
  @EnumSource(
      value = CompressionCodecName.class,
      names = {"ZSTD", "SNAPPY"})
  void aPageDecompressedIntoAReusedLargerArrayIsExactlyItsBytes(CompressionCodecName codec)
      throws IOException {
    BytesInputCompressor compressor = codecs.getCompressor(codec);
    BytesInputDecompressor decompressor = codecs.getDecompressor(codec);
    byte[] large = page(1 << 20, 8);
    byte[] small = page(1000, 9);

    BytesInput first =
        decompressor.decompress(
            BytesInput.from(compressor.compress(BytesInput.from(large)).toByteArray()),
            large.length);
    byte[] firstArray = first.toByteBuffer().array();
    assertThat(first.toByteArray()).isEqualTo(large);
    buffers.giveBack(first);

    BytesInput second =
        decompressor.decompress(
            BytesInput.from(compressor.compress(BytesInput.from(small)).toByteArray()),
            small.length);

    // the megabyte array holds the small page now; the bytes read are the small page's alone
    assertThat(second.toByteBuffer().array()).isSameAs(firstArray);
    assertThat(second.size()).isEqualTo(small.length);
    assertThat(second.toByteArray()).isEqualTo(small);
    // a page longer than its header says still fails, though the reused array has room for it
    buffers.giveBack(second);
    BytesInput longer = BytesInput.from(compressor.compress(BytesInput.from(small)).toByteArray());
    assertThatThrownBy(() -> decompressor.decompress(longer, small.length - 1))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("Cannot decompress a " + codec + " page");
    // the array of the failed page is free again, not lent
    assertThat(buffers.lentCount()).isZero();
    assertThat(buffers.take(small.length)).isSameAs(firstArray);
  }

  @Test
  void theContextIsUsableAgainAfterRelease() throws IOException {
    byte[] page = page(2000, 7);
    BytesInput zstd = BytesInput.from(Zstd.compress(page));
    codecs.getDecompressor(CompressionCodecName.ZSTD).decompress(zstd, page.length);
    codecs.release();

    assertThat(
            codecs
                .getDecompressor(CompressionCodecName.ZSTD)
                .decompress(BytesInput.from(Zstd.compress(page)), page.length)
                .toByteArray())
        .isEqualTo(page);
  }

  /** Compressible bytes: runs of a few values, as in encoded pages. */
  private static byte[] page(int length, long seed) {
    Random random = new Random(seed);
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; ) {
      byte value = (byte) random.nextInt(8);
      int run = 1 + random.nextInt(12);
      for (int j = 0; j < run && i < length; j++) {
        bytes[i++] = value;
      }
    }
    return bytes;
  }
}
