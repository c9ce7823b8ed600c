package io.floe.spark.read.exec;

import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.util.Progressable;
import org.apache.iceberg.hadoop.HadoopStreams;
import org.apache.iceberg.io.InputFile;

/**
 * A Hadoop file system that opens one Iceberg {@link InputFile} for reading and does nothing else:
 * what ORC's reader needs to read the footer of a file of a table whose FileIO is not Hadoop's (S3,
 * say). Carries the file; every other operation is refused.
 */
final class InputFileSystem extends FileSystem {
  private final InputFile input;
  private final Path path;

  /**
   * @param conf the settings ORC's reader asks the file system for; without them Hadoop's {@code
   *     open(Path)} fails on a null configuration
   */
  InputFileSystem(InputFile input, Configuration conf) {
    this.input = input;
    this.path = new Path(input.location());
    setConf(conf);
  }

  @Override
  public URI getUri() {
    return path.toUri();
  }

  @Override
  public FSDataInputStream open(Path file, int bufferSize) throws IOException {
    if (!file.equals(path)) {
      throw new IOException("Cannot open " + file + ": this file system opens only " + path);
    }
    return new FSDataInputStream(HadoopStreams.wrap(input.newStream()));
  }

  @Override
  public FSDataOutputStream create(
      Path file, FsPermission permission, boolean overwrite, int bufferSize, short replication,
      long blockSize, Progressable progress) {
    throw new UnsupportedOperationException("Cannot create " + file + ": read only");
  }

  @Override
  public FSDataOutputStream append(Path file, int bufferSize, Progressable progress) {
    throw new UnsupportedOperationException("Cannot append to " + file + ": read only");
  }

  @Override
  public boolean rename(Path from, Path to) {
    throw new UnsupportedOperationException("Cannot rename " + from + ": read only");
  }

  @Override
  public boolean delete(Path file, boolean recursive) {
    throw new UnsupportedOperationException("Cannot delete " + file + ": read only");
  }

  @Override
  public FileStatus[] listStatus(Path folder) {
    throw new UnsupportedOperationException("Cannot list " + folder + ": opens one file only");
  }

  @Override
  public void setWorkingDirectory(Path folder) {
    throw new UnsupportedOperationException("Cannot change the working directory");
  }

  @Override
  public Path getWorkingDirectory() {
    return path.getParent();
  }

  @Override
  public boolean mkdirs(Path folder, FsPermission permission) {
    throw new UnsupportedOperationException("Cannot create " + folder + ": read only");
  }

  @Override
  public FileStatus getFileStatus(Path file) throws IOException {
    if (!file.equals(path)) {
      throw new IOException("Cannot stat " + file + ": this file system knows only " + path);
    }
    return new FileStatus(input.getLength(), false, 1, input.getLength(), 0, path);
  }
}
