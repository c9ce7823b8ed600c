package io.floe.spark.read.exec;

import java.io.IOException;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/**
 * Lets Parquet read through Iceberg's FileIO: wraps an Iceberg input file as a Parquet {@link
 * InputFile}, so that local, HDFS and object-store files are opened the same way the row path
 * opens them.
 */
final class ParquetInputs {
  private ParquetInputs() {}

  static InputFile of(org.apache.iceberg.io.InputFile file) {
    return new IcebergInputFile(file);
  }

  private static final class IcebergInputFile implements InputFile {
    private final org.apache.iceberg.io.InputFile file;

    IcebergInputFile(org.apache.iceberg.io.InputFile file) {
      this.file = file;
    }

    @Override
    public long getLength() {
      return file.getLength();
    }

    @Override
    public SeekableInputStream newStream() {
      return new Stream(file.newStream());
    }

    @Override
    public String toString() {
      return file.location();
    }
  }

  private static final class Stream extends DelegatingSeekableInputStream {
    private final org.apache.iceberg.io.SeekableInputStream stream;

    Stream(org.apache.iceberg.io.SeekableInputStream stream) {
      super(stream);
      this.stream = stream;
    }

    @Override
    public long getPos() throws IOException {
      return stream.getPos();
    }

    @Override
    public void seek(long newPos) throws IOException {
      stream.seek(newPos);
    }
  }
}
