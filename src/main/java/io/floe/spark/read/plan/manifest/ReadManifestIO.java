package io.floe.spark.read.plan.manifest;

import java.util.Map;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;

/**
 * A table's FileIO with one manifest, already read, served from memory, so that Iceberg's manifest
 * reader reads the bytes {@link DataManifestPlanner} read for pruning instead of reading the file
 * again. It carries the table's FileIO, the manifest's path and its contents; everything else goes
 * to the table's FileIO. Iceberg's manifest reader opens manifests through {@link
 * #newInputFile(ManifestFile)}.
 */
final class ReadManifestIO implements FileIO {
  private final FileIO io;
  private final String path;
  private final InputFile contents;

  ReadManifestIO(FileIO io, String path, InputFile contents) {
    this.io = io;
    this.path = path;
    this.contents = contents;
  }

  @Override
  public InputFile newInputFile(ManifestFile manifest) {
    return manifest.path().equals(path) ? contents : io.newInputFile(manifest);
  }

  @Override
  public InputFile newInputFile(String location) {
    return location.equals(path) ? contents : io.newInputFile(location);
  }

  @Override
  public OutputFile newOutputFile(String location) {
    return io.newOutputFile(location);
  }

  @Override
  public void deleteFile(String location) {
    io.deleteFile(location);
  }

  @Override
  public Map<String, String> properties() {
    return io.properties();
  }
}
