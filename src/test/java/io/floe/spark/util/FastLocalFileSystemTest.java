package io.floe.spark.util;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.catalog.CatalogBuilder;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hadoop's local file system with permissions set in the JVM: the same files, checksum files and
 * permissions as Hadoop's own, and what Floe's catalogs hand their tables.
 */
class FastLocalFileSystemTest {
  @TempDir Path folder;

  private static Configuration conf(String impl, String umask) {
    Configuration conf = new Configuration();
    conf.set(FastLocalFileSystem.IMPL_KEY, impl);
    conf.setBoolean(FastLocalFileSystem.NO_CACHE_KEY, true);
    conf.set("fs.permissions.umask-mode", umask);
    return conf;
  }

  private static FileSystem fileSystem(Configuration conf, Path path) throws IOException {
    return new org.apache.hadoop.fs.Path(path.toUri()).getFileSystem(conf);
  }

  /** Writes {@code text} to {@code relative} under {@code root} (its folders created on the way). */
  private static void write(FileSystem fs, Path root, String relative, String text)
      throws IOException {
    try (OutputStream out = fs.create(new org.apache.hadoop.fs.Path(root.resolve(relative).toUri()))) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
  }

  private static String permissions(Path path) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
  }

  @Test
  void writesTheFilesChecksumsAndPermissionsOfHadoopsLocalFileSystem() throws IOException {
    for (String umask : new String[] {"022", "077", "002"}) {
      Path hadoop = folder.resolve("hadoop-" + umask);
      Path fast = folder.resolve("fast-" + umask);
      FileSystem hadoopFs = fileSystem(conf(LocalFileSystem.class.getName(), umask), hadoop);
      FileSystem fastFs = fileSystem(conf(FastLocalFileSystem.class.getName(), umask), fast);
      assertThat(hadoopFs).isExactlyInstanceOf(LocalFileSystem.class);
      assertThat(fastFs).isExactlyInstanceOf(FastLocalFileSystem.class);

      write(hadoopFs, hadoop, "a/b/data.bin", "rows " + umask);
      write(fastFs, fast, "a/b/data.bin", "rows " + umask);

      for (String relative : new String[] {"a", "a/b", "a/b/data.bin", "a/b/.data.bin.crc"}) {
        assertThat(fast.resolve(relative)).as(relative).exists();
        assertThat(permissions(fast.resolve(relative)))
            .as("%s with umask %s", relative, umask)
            .isEqualTo(permissions(hadoop.resolve(relative)));
      }
      assertThat(fast.resolve("a/b/data.bin")).hasSameBinaryContentAs(hadoop.resolve("a/b/data.bin"));
      assertThat(fast.resolve("a/b/.data.bin.crc"))
          .hasSameBinaryContentAs(hadoop.resolve("a/b/.data.bin.crc"));
      try (var in = fastFs.open(new org.apache.hadoop.fs.Path(fast.resolve("a/b/data.bin").toUri()))) {
        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("rows " + umask);
      }
    }
    assertThat(permissions(folder.resolve("fast-022/a/b/data.bin"))).isEqualTo("rw-r--r--");
    assertThat(permissions(folder.resolve("fast-077/a/b"))).isEqualTo("rwx------");
  }

  @Test
  void setsEveryPermissionBitAndLeavesStickyBitsToHadoop() throws IOException {
    FileSystem fs = fileSystem(conf(FastLocalFileSystem.class.getName(), "022"), folder);
    write(fs, folder, "f", "x");
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(folder.resolve("f").toUri());
    for (short mode : new short[] {0000, 0111, 0222, 0444, 0640, 0705, 0777}) {
      fs.setPermission(file, new FsPermission(mode));
      assertThat(fs.getFileStatus(file).getPermission().toShort()).as("mode %o", mode).isEqualTo(mode);
    }
    org.apache.hadoop.fs.Path sticky = new org.apache.hadoop.fs.Path(folder.resolve("shared").toUri());
    assertThat(fs.mkdirs(sticky)).isTrue();
    fs.setPermission(sticky, new FsPermission((short) 01777));
    assertThat(fs.getFileStatus(sticky).getPermission().getStickyBit()).isTrue();
    assertThat(permissions(folder.resolve("shared"))).isEqualTo("rwxrwxrwx");
  }

  @Test
  void aConfigurationGetsItUnlessItNamesALocalFileSystemOfItsOwn() throws IOException {
    Configuration plain = FastLocalFileSystem.useIn(new Configuration());
    assertThat(plain.get(FastLocalFileSystem.IMPL_KEY)).isEqualTo(FastLocalFileSystem.class.getName());
    // Hadoop caches one file system per scheme for the JVM: the configuration still gets its own
    assertThat(FileSystem.getLocal(new Configuration())).isNotInstanceOf(FastLocalFileSystem.class);
    assertThat(fileSystem(plain, folder)).isExactlyInstanceOf(FastLocalFileSystem.class);

    Configuration chosen = new Configuration();
    chosen.set(FastLocalFileSystem.IMPL_KEY, LocalFileSystem.class.getName());
    FastLocalFileSystem.useIn(chosen);
    assertThat(chosen.get(FastLocalFileSystem.IMPL_KEY)).isEqualTo(LocalFileSystem.class.getName());
    assertThat(chosen.get(FastLocalFileSystem.NO_CACHE_KEY)).isNull();
  }

  @Test
  void aCatalogsTablesWriteThroughItUnlessTheCatalogOptionsNameAnother() throws IOException {
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    Map<String, String> hadoopCatalog =
        Map.of("type", "hadoop", "warehouse", folder.resolve("fast").toUri().toString());
    Table table =
        CatalogBuilder.build("fast", hadoopCatalog, new Configuration())
            .createTable(TableIdentifier.of("db", "t"), schema, PartitionSpec.unpartitioned());
    Configuration tableConf = ((HadoopFileIO) table.io()).conf();
    assertThat(tableConf.get(FastLocalFileSystem.IMPL_KEY)).isEqualTo(FastLocalFileSystem.class.getName());
    String location = table.locationProvider().newDataLocation("probe.bin");
    try (OutputStream out = table.io().newOutputFile(location).create()) {
      out.write(1);
    }
    assertThat(permissions(Path.of(java.net.URI.create(location)))).isEqualTo("rw-r--r--");
    assertThat(table.io().newInputFile(location).getLength()).isEqualTo(1);

    Catalog hadoopOwn =
        CatalogBuilder.build(
            "own",
            Map.of(
                "type", "hadoop",
                "warehouse", folder.resolve("own").toUri().toString(),
                "hadoop.fs.file.impl", LocalFileSystem.class.getName()),
            new Configuration());
    Table own =
        hadoopOwn.createTable(TableIdentifier.of("db", "t"), schema, PartitionSpec.unpartitioned());
    assertThat(((HadoopFileIO) own.io()).conf().get(FastLocalFileSystem.IMPL_KEY))
        .isEqualTo(LocalFileSystem.class.getName());
  }
}
