package io.floe.spark.util;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * Hadoop's local file system ({@code file:}), checksum files included, that sets the permissions of
 * the files and folders it creates through Java's own file API instead of a {@code chmod} process.
 *
 * <p>Without Hadoop's native library (the usual case for Spark from Maven or pip), Hadoop's {@link
 * RawLocalFileSystem} starts a {@code chmod} process for every file it creates, and for the
 * checksum file beside it: 3 to 7 ms a file. That was most of the time Iceberg takes to write a
 * small manifest (8.9 ms against 2.1 ms without), and about 45 ms of a 0.28 s stream epoch of 50,000
 * rows (a data file, a manifest, a manifest list, the table metadata and its version hint). The
 * permissions set are the same ({@code fs.permissions.umask-mode} applied to Hadoop's default);
 * a permission Java cannot express (sticky, setuid or setgid bits) and a file system without POSIX
 * permissions go to Hadoop's own way.
 *
 * <p>Floe's catalogs use it through their Hadoop configuration ({@link #useIn}), which their tables'
 * {@code HadoopFileIO} carries to the executors; nothing else in the Spark application changes.
 * Carries nothing beyond Hadoop's local file system.
 */
public final class FastLocalFileSystem extends LocalFileSystem {
  /** Hadoop's setting of the class that serves {@code file:} paths. */
  public static final String IMPL_KEY = "fs.file.impl";
  /** Hadoop's setting that makes each use of {@code file:} paths get its own instance. */
  static final String NO_CACHE_KEY = "fs.file.impl.disable.cache";

  private static final PosixFilePermission[] BITS = {
    PosixFilePermission.OTHERS_EXECUTE,
    PosixFilePermission.OTHERS_WRITE,
    PosixFilePermission.OTHERS_READ,
    PosixFilePermission.GROUP_EXECUTE,
    PosixFilePermission.GROUP_WRITE,
    PosixFilePermission.GROUP_READ,
    PosixFilePermission.OWNER_EXECUTE,
    PosixFilePermission.OWNER_WRITE,
    PosixFilePermission.OWNER_READ
  };

  public FastLocalFileSystem() {
    super(new PermissionsWithoutShell());
  }

  /**
   * Makes {@code conf} serve {@code file:} paths with this class, unless it names a class for them
   * already (a user's {@code hadoop.fs.file.impl}, which also turns this off). Hadoop caches one
   * file system per scheme for the whole JVM, whatever configuration asked first, so {@code conf}
   * also asks for an instance of its own on each use; an instance holds no resource.
   *
   * @return {@code conf}
   */
  public static Configuration useIn(Configuration conf) {
    if (conf.get(IMPL_KEY) == null) {
      conf.setClass(IMPL_KEY, FastLocalFileSystem.class, FileSystem.class);
      conf.setBoolean(NO_CACHE_KEY, true);
    }
    return conf;
  }

  /** The raw local file system under the checksums, with permissions set in this process. */
  static final class PermissionsWithoutShell extends RawLocalFileSystem {
    @Override
    public void setPermission(Path path, FsPermission permission) throws IOException {
      short mode = permission.toShort();
      java.nio.file.Path file = pathToFile(path).toPath();
      if ((mode & ~0777) != 0
          || !file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
        super.setPermission(path, permission);
        return;
      }
      Set<PosixFilePermission> permissions = EnumSet.noneOf(PosixFilePermission.class);
      for (int bit = 0; bit < BITS.length; bit++) {
        if ((mode & (1 << bit)) != 0) {
          permissions.add(BITS[bit]);
        }
      }
      Files.setPosixFilePermissions(file, permissions);
    }
  }
}
