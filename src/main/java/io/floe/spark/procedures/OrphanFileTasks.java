package io.floe.spark.procedures;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.api.java.function.Function;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.util.SerializableConfiguration;

/**
 * The pieces {@code remove_orphan_files} ships to executors, each a small serializable value: a
 * recursive directory listing, the file paths of a manifest, and the split of a location into the
 * parts orphan matching compares.
 */
public final class OrphanFileTasks {
  private OrphanFileTasks() {}

  /**
   * Whether a listed name is hidden, and neither listed nor descended into: a name starting with
   * {@code .} (checksums, temporary files), or with {@code _} unless it is a partition directory
   * ({@code _col=value}).
   */
  static boolean hidden(String name) {
    return name.startsWith(".") || (name.startsWith("_") && !name.contains("="));
  }

  /**
   * Lists a directory recursively with Hadoop's file system on an executor and returns the
   * location of every visible file modified before {@code olderThanMillis}.
   *
   * <p>Carries the Hadoop configuration and the cut-off time.
   */
  public static final class ListDirectory implements FlatMapFunction<String, String> {
    private final SerializableConfiguration conf;
    private final long olderThanMillis;

    public ListDirectory(SerializableConfiguration conf, long olderThanMillis) {
      this.conf = Objects.requireNonNull(conf, "conf is null");
      this.olderThanMillis = olderThanMillis;
    }

    public long olderThanMillis() {
      return olderThanMillis;
    }

    @Override
    public Iterator<String> call(String directory) {
      List<String> files = new ArrayList<>();
      Deque<Path> pending = new ArrayDeque<>();
      pending.add(new Path(directory));
      try {
        FileSystem fs = new Path(directory).getFileSystem(conf.value());
        while (!pending.isEmpty()) {
          for (FileStatus status : fs.listStatus(pending.poll())) {
            if (hidden(status.getPath().getName())) {
              continue;
            }
            if (status.isDirectory()) {
              pending.add(status.getPath());
            } else if (status.getModificationTime() < olderThanMillis) {
              files.add(status.getPath().toString());
            }
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot list " + directory, e);
      }
      return files.iterator();
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof ListDirectory
          && olderThanMillis == ((ListDirectory) other).olderThanMillis;
    }

    @Override
    public int hashCode() {
      return Long.hashCode(olderThanMillis);
    }

    @Override
    public String toString() {
      return "ListDirectory{olderThanMillis=" + olderThanMillis + "}";
    }
  }

  /**
   * Reads the locations of every live file a manifest lists (data files, delete files, deletion
   * vectors' Puffin files) on an executor.
   *
   * <p>Carries the table's FileIO and partition specs.
   */
  public static final class ManifestPaths implements FlatMapFunction<ManifestFile, String> {
    private final FileIO io;
    private final Map<Integer, PartitionSpec> specs;

    public ManifestPaths(FileIO io, Map<Integer, PartitionSpec> specs) {
      this.io = Objects.requireNonNull(io, "io is null");
      this.specs = Map.copyOf(Objects.requireNonNull(specs, "specs is null"));
    }

    public FileIO io() {
      return io;
    }

    public Map<Integer, PartitionSpec> specs() {
      return specs;
    }

    @Override
    public Iterator<String> call(ManifestFile manifest) {
      List<String> paths = new ArrayList<>();
      try {
        if (manifest.content() == ManifestContent.DATA) {
          try (CloseableIterable<String> files = ManifestFiles.readPaths(manifest, io, specs)) {
            files.forEach(paths::add);
          }
        } else {
          try (ManifestReader<DeleteFile> files =
              ManifestFiles.readDeleteManifest(manifest, io, specs)) {
            files.forEach(file -> paths.add(file.location()));
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read manifest " + manifest.path(), e);
      }
      return paths.iterator();
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof ManifestPaths && specs.equals(((ManifestPaths) other).specs);
    }

    @Override
    public int hashCode() {
      return specs.hashCode();
    }

    @Override
    public String toString() {
      return "ManifestPaths{specs=" + specs.keySet() + "}";
    }
  }

  /**
   * Splits a location into {@code (path, scheme, authority, location)}, the scheme and authority
   * mapped through the {@code equal_schemes} and {@code equal_authorities} of the call.
   *
   * <p>Carries those two maps.
   */
  public static final class UriParts implements Function<String, Row> {
    private final Map<String, String> equalSchemes;
    private final Map<String, String> equalAuthorities;

    public UriParts(Map<String, String> equalSchemes, Map<String, String> equalAuthorities) {
      this.equalSchemes = Map.copyOf(Objects.requireNonNull(equalSchemes, "equalSchemes is null"));
      this.equalAuthorities =
          Map.copyOf(Objects.requireNonNull(equalAuthorities, "equalAuthorities is null"));
    }

    public Map<String, String> equalSchemes() {
      return equalSchemes;
    }

    public Map<String, String> equalAuthorities() {
      return equalAuthorities;
    }

    @Override
    public Row call(String location) {
      URI uri = new Path(location).toUri();
      String scheme = uri.getScheme();
      String authority = uri.getAuthority();
      return RowFactory.create(
          uri.getPath(),
          scheme == null ? null : equalSchemes.getOrDefault(scheme, scheme),
          authority == null ? null : equalAuthorities.getOrDefault(authority, authority),
          location);
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof UriParts
          && equalSchemes.equals(((UriParts) other).equalSchemes)
          && equalAuthorities.equals(((UriParts) other).equalAuthorities);
    }

    @Override
    public int hashCode() {
      return Objects.hash(equalSchemes, equalAuthorities);
    }

    @Override
    public String toString() {
      return "UriParts{equalSchemes=" + equalSchemes + ", equalAuthorities=" + equalAuthorities + "}";
    }
  }
}
