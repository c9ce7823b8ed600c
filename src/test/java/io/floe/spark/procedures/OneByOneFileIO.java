package io.floe.spark.procedures;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configurable;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;

/**
 * Local files through Hadoop, without bulk deletes, so that {@code max_concurrent_deletes} takes
 * effect; records the threads that delete.
 */
public class OneByOneFileIO implements FileIO, Configurable {
  static final Set<String> DELETING_THREADS = ConcurrentHashMap.newKeySet();

  private final HadoopFileIO delegate = new HadoopFileIO();

  @Override
  public void setConf(Configuration conf) {
    delegate.setConf(conf);
  }

  @Override
  public Configuration getConf() {
    return delegate.getConf();
  }

  @Override
  public void initialize(Map<String, String> properties) {
    delegate.initialize(properties);
  }

  @Override
  public Map<String, String> properties() {
    return delegate.properties();
  }

  @Override
  public InputFile newInputFile(String path) {
    return delegate.newInputFile(path);
  }

  @Override
  public OutputFile newOutputFile(String path) {
    return delegate.newOutputFile(path);
  }

  @Override
  public void deleteFile(String path) {
    DELETING_THREADS.add(Thread.currentThread().getName());
    delegate.deleteFile(path);
  }
}
