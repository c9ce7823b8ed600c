package io.floe.spark.write.exec;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.DeleteLoader;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.FileIO;

/**
 * Loads the positions a data file's earlier delete files already delete, so that a new deletion
 * vector (or file-scoped position-delete file) holds them as well and the earlier files can leave
 * the table. The delete files come from the scan the operation read, as plain values; they are
 * read on first use only, with Iceberg's delete loader, which records them in the index it returns
 * ({@link PositionDeleteIndex#deleteFiles()}) so the writers can report them as replaced.
 */
final class PreviousDeletes {
  private final Map<String, List<DeleteFile>> byDataFile;
  private final FileIO io;
  private DeleteLoader loader;

  PreviousDeletes(Map<String, List<DeleteFile>> byDataFile, FileIO io) {
    this.byDataFile = Objects.requireNonNull(byDataFile, "byDataFile is null");
    this.io = Objects.requireNonNull(io, "io is null");
  }

  /** The positions the data file's earlier deletes hold, or null when it has none to replace. */
  PositionDeleteIndex load(CharSequence dataFile) {
    List<DeleteFile> files = byDataFile.get(dataFile.toString());
    if (files == null || files.isEmpty()) {
      return null;
    }
    if (loader == null) {
      loader = new BaseDeleteLoader(file -> io.newInputFile(file));
    }
    return loader.loadPositionDeletes(files, dataFile);
  }
}
