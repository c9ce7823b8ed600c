package io.floe.spark.parquet;

import com.github.luben.zstd.ZstdDecompressCtx;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopCodecs;
import org.xerial.snappy.Snappy;

/**
 * The page decompressors of one file read by Floe's decoder: ZSTD and Snappy pages are decompressed
 * in one call from the page's bytes into an array of the size the page header gives, every other
 * codec by Parquet's own decompressors.
 *
 * <p>It exists because Parquet's decompressors go through a stream per page: for ZSTD a new native
 * stream context per page, a buffered copy, and a zero-filled output array filled through {@code
 * readFully}; on scans of zstd tables that was half the time a task spent decoding. One-shot
 * decompression gives the same bytes (a ZSTD page may hold several frames; all are decoded) and
 * fails when a page does not decompress to the size its header promises.
 *
 * <p>Pages are decompressed into arrays from the reader's {@link PageBuffers}, and the decoder gives
 * each page back when it moves on to its column's next page; the returned bytes are exactly the
 * page's, however long the lent array is.
 *
 * <p>Owned by one file reader and used by one thread at a time; the reader releases it when it
 * closes, which frees the ZSTD context.
 */
final class PageDecompressors implements CompressionCodecFactory {
  private final Configuration conf;
  private final PageBuffers buffers;
  private CompressionCodecFactory parquetCodecs;
  private ZstdDecompressCtx zstd;
  private final BytesInputDecompressor zstdPages = new OneShot(CompressionCodecName.ZSTD);
  private final BytesInputDecompressor snappyPages = new OneShot(CompressionCodecName.SNAPPY);

  PageDecompressors(Configuration conf, PageBuffers buffers) {
    this.conf = conf;
    this.buffers = buffers;
  }

  @Override
  public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
    return switch (codec) {
      case ZSTD -> zstdPages;
      case SNAPPY -> snappyPages;
      default -> parquetCodecs().getDecompressor(codec);
    };
  }

  @Override
  public BytesInputCompressor getCompressor(CompressionCodecName codec) {
    return parquetCodecs().getCompressor(codec);
  }

  @Override
  public void release() {
    if (zstd != null) {
      zstd.close();
      zstd = null;
    }
    if (parquetCodecs != null) {
      parquetCodecs.release();
      parquetCodecs = null;
    }
  }

  private CompressionCodecFactory parquetCodecs() {
    if (parquetCodecs == null) {
      parquetCodecs = HadoopCodecs.newFactory(conf, 0);
    }
    return parquetCodecs;
  }

  private int decompress(CompressionCodecName codec, ByteBuffer in, byte[] out, int size)
      throws IOException {
    byte[] src = in.array();
    int offset = in.arrayOffset() + in.position();
    int length = in.remaining();
    if (codec == CompressionCodecName.ZSTD) {
      if (zstd == null) {
        zstd = new ZstdDecompressCtx();
      }
      return zstd.decompressByteArray(out, 0, size, src, offset, length);
    }
    // Snappy writes the length its own header gives; a lent array may have room for more, so a
    // page longer than its Parquet header says is caught by the size check, not by an overflow
    return Snappy.uncompress(src, offset, length, out, 0);
  }

  /** One call per page, from the page's own bytes when they are on the heap. */
  private final class OneShot implements BytesInputDecompressor {
    private final CompressionCodecName codec;

    OneShot(CompressionCodecName codec) {
      this.codec = codec;
    }

    @Override
    public BytesInput decompress(BytesInput bytes, int uncompressedSize) throws IOException {
      if (uncompressedSize == 0) {
        // as Parquet's stream decompressors: nothing is read for an empty page
        return BytesInput.empty();
      }
      ByteBuffer in = bytes.toByteBuffer();
      if (!in.hasArray()) {
        in = ByteBuffer.wrap(bytes.toByteArray());
      }
      byte[] out = buffers.take(uncompressedSize);
      int written;
      try {
        written = PageDecompressors.this.decompress(codec, in, out, uncompressedSize);
      } catch (IOException | RuntimeException e) {
        buffers.keep(out);
        throw new IOException("Cannot decompress a " + codec + " page: " + e.getMessage(), e);
      }
      if (written != uncompressedSize) {
        buffers.keep(out);
        throw new IOException(
            "Cannot decompress a "
                + codec
                + " page: it holds "
                + written
                + " bytes, its header says "
                + uncompressedSize);
      }
      BytesInput page = BytesInput.from(out, 0, uncompressedSize);
      buffers.lend(page, out);
      return page;
    }

    @Override
    public void decompress(ByteBuffer input, int compressedSize, ByteBuffer output, int size)
        throws IOException {
      // only off-heap reads call this; Floe's decoder reads on the heap
      parquetCodecs().getDecompressor(codec).decompress(input, compressedSize, output, size);
    }

    @Override
    public void release() {
      // the context belongs to the enclosing factory, released with it
    }
  }
}
