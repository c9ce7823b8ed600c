package io.floe.spark.procedures;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.types.Type;

/**
 * Assigns the data files of the manifests being rewritten to the new manifests the way the official
 * runtime does: sorted by the clustering partition fields (then by path, so that the outcome is
 * deterministic) and cut into {@code count} contiguous ranges of about equal size. Each file's
 * range is the cluster key handed to Iceberg's {@code RewriteManifests.clusterBy}.
 *
 * <p>The paths and clustering values of every file in those manifests are held on the driver.
 */
final class ManifestClustering {
  private ManifestClustering() {}

  private static final class Entry {
    final String path;
    final List<Object> values;

    Entry(String path, List<Object> values) {
      this.path = path;
      this.values = values;
    }
  }

  /**
   * @param positions the positions, in {@code spec}'s fields, of the fields to cluster by
   * @return the range, from 0 to {@code count - 1}, of each data file by path
   */
  static Map<String, Integer> assign(
      List<ManifestFile> manifests,
      FileIO io,
      Map<Integer, PartitionSpec> specs,
      PartitionSpec spec,
      List<Integer> positions,
      int count) {
    List<Entry> entries = new ArrayList<>();
    for (ManifestFile manifest : manifests) {
      try (ManifestReader<DataFile> reader = ManifestFiles.read(manifest, io, specs)) {
        for (DataFile file : reader) {
          List<Object> values = new ArrayList<>(positions.size());
          for (int position : positions) {
            values.add(copy(file.partition().get(position, Object.class)));
          }
          entries.add(new Entry(file.location(), values));
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read manifest " + manifest.path(), e);
      }
    }
    entries.sort(order(spec, positions));
    Map<String, Integer> ranges = new HashMap<>();
    for (int i = 0; i < entries.size(); i++) {
      ranges.put(entries.get(i).path, (int) ((long) i * count / entries.size()));
    }
    return ranges;
  }

  private static Comparator<Entry> order(PartitionSpec spec, List<Integer> positions) {
    Comparator<Entry> order = (left, right) -> 0;
    for (int i = 0; i < positions.size(); i++) {
      int index = i;
      Type type = spec.partitionType().fields().get(positions.get(i)).type();
      Comparator<Object> values = Comparators.nullsFirst().thenComparing(comparator(type));
      order = order.thenComparing(entry -> entry.values.get(index), values);
    }
    return order.thenComparing(entry -> entry.path);
  }

  @SuppressWarnings("unchecked")
  private static Comparator<Object> comparator(Type type) {
    return (Comparator<Object>) (Comparator<?>) Comparators.forType(type.asPrimitiveType());
  }

  private static Object copy(Object value) {
    if (value instanceof CharSequence) {
      return value.toString();
    }
    if (value instanceof ByteBuffer) {
      ByteBuffer buffer = (ByteBuffer) value;
      ByteBuffer copy = ByteBuffer.allocate(buffer.remaining());
      copy.put(buffer.duplicate()).flip();
      return copy;
    }
    return value;
  }
}
