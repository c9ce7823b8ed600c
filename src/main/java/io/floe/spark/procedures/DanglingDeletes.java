package io.floe.spark.procedures;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.ContentFileUtil;
import org.apache.iceberg.util.StructLikeMap;

/**
 * Finds the delete files of a snapshot that can no longer apply to any live row ({@code
 * remove-dangling-deletes}), from its manifests, on the driver:
 *
 * <ul>
 *   <li>a deletion vector, or a position delete file that names one data file, whose data file is
 *       no longer live;
 *   <li>a position delete file older than every live data file of its partition (position deletes
 *       apply to data files of a lower or equal data sequence number);
 *   <li>an equality delete file not newer than every live data file of its partition (equality
 *       deletes apply to lower data sequence numbers only); a delete file of an unpartitioned spec
 *       is compared with every live data file.
 * </ul>
 */
final class DanglingDeletes {
  private DanglingDeletes() {}

  static List<DeleteFile> find(Table table, Snapshot snapshot) {
    Map<Integer, PartitionSpec> specs = table.specs();
    Map<Integer, StructLikeMap<Long>> minSequence = new HashMap<>();
    Set<String> liveData = new HashSet<>();
    long globalMin = Long.MAX_VALUE;
    for (ManifestFile manifest : snapshot.dataManifests(table.io())) {
      try (ManifestReader<DataFile> reader = ManifestFiles.read(manifest, table.io(), specs)) {
        for (DataFile file : reader) {
          liveData.add(file.location());
          long sequence = file.dataSequenceNumber();
          globalMin = Math.min(globalMin, sequence);
          minSequence
              .computeIfAbsent(
                  file.specId(), id -> StructLikeMap.create(specs.get(id).partitionType()))
              .merge(file.partition(), sequence, Math::min);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read manifest " + manifest.path(), e);
      }
    }
    List<DeleteFile> dangling = new ArrayList<>();
    for (ManifestFile manifest : snapshot.deleteManifests(table.io())) {
      try (ManifestReader<DeleteFile> reader =
          ManifestFiles.readDeleteManifest(manifest, table.io(), specs)) {
        for (DeleteFile file : reader) {
          if (isDangling(file, specs, minSequence, liveData, globalMin)) {
            dangling.add(file.copyWithoutStats());
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read manifest " + manifest.path(), e);
      }
    }
    return dangling;
  }

  private static boolean isDangling(
      DeleteFile file,
      Map<Integer, PartitionSpec> specs,
      Map<Integer, StructLikeMap<Long>> minSequence,
      Set<String> liveData,
      long globalMin) {
    if (file.content() == FileContent.POSITION_DELETES) {
      // a deletion vector, or a position delete file that names one data file
      CharSequence referenced = ContentFileUtil.referencedDataFile(file);
      if (referenced != null && !liveData.contains(referenced.toString())) {
        return true;
      }
    }
    Long min;
    if (specs.get(file.specId()).isUnpartitioned()) {
      min = globalMin == Long.MAX_VALUE ? null : globalMin;
    } else {
      StructLikeMap<Long> bySpec = minSequence.get(file.specId());
      min = bySpec == null ? null : bySpec.get(file.partition());
    }
    if (min == null) {
      return true;
    }
    long sequence = file.dataSequenceNumber();
    return file.content() == FileContent.POSITION_DELETES ? sequence < min : sequence <= min;
  }
}
