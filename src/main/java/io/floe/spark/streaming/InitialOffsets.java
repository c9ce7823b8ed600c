package io.floe.spark.streaming;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.spark.sql.SparkSession;

/**
 * A stream source's first offset, kept in {@code <checkpoint>/offsets/0} (as the official runtime
 * does), so that a restart before the first micro-batch completes starts at the same place.
 */
final class InitialOffsets {
  private InitialOffsets() {}

  /**
   * The first offset read from the checkpoint (and checked), or, the first time, the one {@code
   * start} works out, written there.
   */
  static SnapshotOffset stored(
      String checkpointLocation,
      Supplier<SnapshotOffset> start,
      UnaryOperator<SnapshotOffset> check) {
    HadoopFileIO io = new HadoopFileIO(SparkSession.active().sessionState().newHadoopConf());
    String location = checkpointLocation + "/offsets/0";
    InputFile stored = io.newInputFile(location);
    if (stored.exists()) {
      try (BufferedReader reader =
          new BufferedReader(new InputStreamReader(stored.newStream(), StandardCharsets.UTF_8))) {
        return check.apply(SnapshotOffset.fromJson(reader.lines().collect(Collectors.joining("\n"))));
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read the stream's first offset from " + location, e);
      }
    }
    SnapshotOffset offset = start.get();
    OutputFile output = io.newOutputFile(location);
    try (OutputStream out = output.createOrOverwrite()) {
      out.write(offset.json().getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write the stream's first offset to " + location, e);
    }
    return offset;
  }
}
