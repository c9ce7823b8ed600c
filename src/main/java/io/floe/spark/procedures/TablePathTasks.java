package io.floe.spark.procedures;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RewriteTablePathUtil;
import org.apache.iceberg.RewriteTablePathUtil.RewriteResult;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DeleteSchemaUtil;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.util.Pair;
import org.apache.spark.api.java.function.FlatMapFunction;

/**
 * The pieces {@code rewrite_table_path} ships to executors: the check that every file a manifest
 * lists is under the source prefix, the rewrite of manifests, one or more per task, and the rewrite
 * of position delete files, whose rows name data files. Both write into
 * the staging folder, under the path each file has relative to the source prefix, with Iceberg
 * core's {@link RewriteTablePathUtil}; they never touch the table's own files.
 */
public final class TablePathTasks {
  private TablePathTasks() {}

  /**
   * One line of the copy plan: the file to copy (the original, or its rewritten copy in the staging
   * folder) and where it goes.
   */
  public record Copy(String source, String target) implements Serializable {
    public Copy {
      Objects.requireNonNull(source, "source is null");
      Objects.requireNonNull(target, "target is null");
    }

    static Copy of(Pair<String, String> pair) {
      return new Copy(pair.first(), pair.second());
    }
  }

  /**
   * What a manifest task found: the copy plan of the rewritten manifests and of the files their
   * live entries added in the rewritten range, and the position delete files to rewrite next.
   */
  public record Rewritten(List<Copy> copies, List<DeleteFile> positionDeletes)
      implements Serializable {
    public Rewritten {
      copies = List.copyOf(copies);
      positionDeletes = List.copyOf(positionDeletes);
    }
  }

  /** Where to rewrite: the prefixes, the staging folder and the table's format version. */
  public record Paths(String sourcePrefix, String targetPrefix, String stagingDir, int formatVersion)
      implements Serializable {
    public Paths {
      Objects.requireNonNull(sourcePrefix, "sourcePrefix is null");
      Objects.requireNonNull(targetPrefix, "targetPrefix is null");
      Objects.requireNonNull(stagingDir, "stagingDir is null");
    }

    String staged(String location) {
      return RewriteTablePathUtil.stagingPath(location, sourcePrefix, stagingDir);
    }

    String target(String location) {
      return RewriteTablePathUtil.newPath(location, sourcePrefix, targetPrefix);
    }
  }

  /**
   * Reads each manifest of its task and returns the location of the first live file it lists that
   * is not under the source prefix (nothing when all are), so that the call can refuse before it
   * writes anything.
   *
   * <p>Carries a read-only copy of the table (FileIO and specs) and the source prefix.
   */
  public static final class OutsidePrefix implements FlatMapFunction<Iterator<ManifestFile>, String> {
    private final Table table;
    private final String sourcePrefix;

    public OutsidePrefix(Table table, String sourcePrefix) {
      this.table = Objects.requireNonNull(table, "table is null");
      this.sourcePrefix = RewriteTablePathUtil.maybeAppendFileSeparator(
          Objects.requireNonNull(sourcePrefix, "sourcePrefix is null"));
    }

    public Table table() {
      return table;
    }

    public String sourcePrefix() {
      return sourcePrefix;
    }

    @Override
    public Iterator<String> call(Iterator<ManifestFile> manifests) throws IOException {
      List<String> outside = new ArrayList<>();
      while (manifests.hasNext()) {
        ManifestFile manifest = manifests.next();
        try (CloseableIterable<? extends ContentFile<?>> files =
            manifest.content() == ManifestContent.DATA
                ? ManifestFiles.read(manifest, table.io(), table.specs())
                : ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
          for (ContentFile<?> file : files) {
            if (!file.location().startsWith(sourcePrefix)) {
              outside.add(file.location());
              break;
            }
          }
        }
      }
      return outside.iterator();
    }
  }

  /**
   * Rewrites each manifest of its task into the staging folder with every path replaced.
   *
   * <p>Carries a read-only copy of the table (FileIO and specs), the {@link Paths} and the ids of
   * the snapshots whose added files go into the copy plan.
   */
  public static final class RewriteManifests
      implements FlatMapFunction<Iterator<ManifestFile>, Rewritten> {
    private final Table table;
    private final Paths paths;
    private final Set<Long> snapshotIds;

    public RewriteManifests(Table table, Paths paths, Set<Long> snapshotIds) {
      this.table = Objects.requireNonNull(table, "table is null");
      this.paths = Objects.requireNonNull(paths, "paths is null");
      this.snapshotIds = Set.copyOf(Objects.requireNonNull(snapshotIds, "snapshotIds is null"));
    }

    public Table table() {
      return table;
    }

    public Paths paths() {
      return paths;
    }

    public Set<Long> snapshotIds() {
      return snapshotIds;
    }

    @Override
    public Iterator<Rewritten> call(Iterator<ManifestFile> manifests) {
      List<Copy> copies = new ArrayList<>();
      List<DeleteFile> positionDeletes = new ArrayList<>();
      FileIO io = table.io();
      while (manifests.hasNext()) {
        ManifestFile manifest = manifests.next();
        OutputFile output = io.newOutputFile(paths.staged(manifest.path()));
        try {
          switch (manifest.content()) {
            case DATA -> {
              RewriteResult<?> result =
                  RewriteTablePathUtil.rewriteDataManifest(
                      manifest, snapshotIds, output, io, paths.formatVersion(), table.specs(),
                      paths.sourcePrefix(), paths.targetPrefix());
              result.copyPlan().forEach(pair -> copies.add(Copy.of(pair)));
            }
            case DELETES -> {
              RewriteResult<DeleteFile> result =
                  RewriteTablePathUtil.rewriteDeleteManifest(
                      manifest, snapshotIds, output, io, paths.formatVersion(), table.specs(),
                      paths.sourcePrefix(), paths.targetPrefix(), paths.stagingDir());
              result.copyPlan().forEach(pair -> copies.add(Copy.of(pair)));
              for (DeleteFile file : result.toRewrite()) {
                if (file.content() == FileContent.POSITION_DELETES) {
                  positionDeletes.add(file);
                }
              }
            }
          }
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot rewrite manifest " + manifest.path(), e);
        }
      }
      return List.of(new Rewritten(copies, positionDeletes)).iterator();
    }
  }

  /**
   * Rewrites each position delete file (or deletion vector) of its task into the staging folder,
   * with the data file each row names under the target prefix; returns the staged locations.
   *
   * <p>Carries a read-only copy of the table (FileIO and specs) and the {@link Paths}.
   */
  public static final class RewritePositionDeletes
      implements FlatMapFunction<Iterator<DeleteFile>, String> {
    private final Table table;
    private final Paths paths;

    public RewritePositionDeletes(Table table, Paths paths) {
      this.table = Objects.requireNonNull(table, "table is null");
      this.paths = Objects.requireNonNull(paths, "paths is null");
    }

    public Table table() {
      return table;
    }

    public Paths paths() {
      return paths;
    }

    @Override
    public Iterator<String> call(Iterator<DeleteFile> files) {
      List<String> staged = new ArrayList<>();
      FileIO io = table.io();
      while (files.hasNext()) {
        DeleteFile file = files.next();
        String location = paths.staged(file.location());
        try {
          RewriteTablePathUtil.rewritePositionDeleteFile(
              file, io.newOutputFile(location), io, table.specs().get(file.specId()),
              paths.sourcePrefix(), paths.targetPrefix(), new GenericPositionDeletes(table.schema()));
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot rewrite delete file " + file.location(), e);
        }
        staged.add(location);
      }
      return staged.iterator();
    }
  }

  /** Reads and writes position delete rows as Iceberg's generic records. */
  private static final class GenericPositionDeletes
      implements RewriteTablePathUtil.PositionDeleteReaderWriter {
    private final Schema schema;

    GenericPositionDeletes(Schema schema) {
      this.schema = schema;
    }

    @Override
    public CloseableIterable<Record> reader(
        InputFile inputFile, FileFormat format, PartitionSpec spec) {
      return FormatModelRegistry.readBuilder(format, Record.class, inputFile)
          .project(DeleteSchemaUtil.posDeleteReadSchema(spec.schema()))
          .reuseContainers()
          .build();
    }

    @Override
    @SuppressWarnings("deprecation")
    public PositionDeleteWriter<Record> writer(
        OutputFile outputFile,
        FileFormat format,
        PartitionSpec spec,
        StructLike partition,
        Schema rowSchema)
        throws IOException {
      if (rowSchema == null) {
        return FormatModelRegistry.<Record>positionDeleteWriteBuilder(
                format, EncryptedFiles.plainAsEncryptedOutput(outputFile))
            .partition(partition)
            .spec(spec)
            .build();
      }
      // delete rows that carry the deleted row (a v2 option) keep it, in the file's own format
      return new GenericAppenderFactory(schema, spec, null, null, rowSchema)
          .newPosDeleteWriter(EncryptedFiles.plainAsEncryptedOutput(outputFile), format, partition);
    }
  }
}
