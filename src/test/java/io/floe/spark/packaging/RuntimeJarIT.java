package io.floe.spark.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.apache.xbean.asm9.ClassReader;
import org.apache.xbean.asm9.commons.ClassRemapper;
import org.apache.xbean.asm9.commons.Remapper;
import org.apache.xbean.asm9.tree.ClassNode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What the shaded runtime jar ({@code ...-runtime.jar}) holds: Floe and Iceberg, the third-party
 * libraries Spark does not ship relocated under {@code io.floe.shaded} (every reference to a
 * relocated class finds that class in the jar), no class that Spark's own jars hold (so nothing in
 * it can clash with Spark, whatever the classpath order), and merged service files.
 */
@Tag("packaging")
class RuntimeJarIT {
  private static final String SHADED = "io/floe/shaded/";

  private static Set<String> entries;

  @BeforeAll
  static void readJar() throws IOException {
    entries = entries(Settings.runtimeJar());
  }

  @Test
  void holdsFloeIcebergAndRelocatedLibraries() {
    assertThat(entries)
        .contains(
            "io/floe/spark/FloeCatalog.class",
            "io/floe/spark/FloeKryoRegistrator.class",
            "org/apache/iceberg/Table.class",
            "org/apache/iceberg/parquet/Parquet.class",
            "org/apache/iceberg/aws/s3/S3FileIO.class",
            SHADED + "com/github/benmanes/caffeine/cache/Caffeine.class",
            SHADED + "org/apache/hc/client5/http/impl/classic/HttpClients.class",
            SHADED + "dev/failsafe/Failsafe.class",
            SHADED + "org/apache/parquet/avro/AvroSchemaConverter.class",
            "org/apache/iceberg/orc/ORC.class",
            "org/apache/iceberg/data/orc/GenericOrcWriter.class",
            SHADED + "org/apache/orc/OrcFile.class",
            SHADED + "org/apache/orc/storage/ql/exec/vector/VectorizedRowBatch.class");
  }

  @Test
  void theThinJarCarriesIcebergsOrcSupportWithOrcRelocated() throws IOException {
    Set<String> thin = entries(Settings.thinJar());
    assertThat(thin)
        .contains(
            "io/floe/spark/FloeCatalog.class",
            "org/apache/iceberg/orc/ORC.class",
            "org/apache/iceberg/data/GenericFormatModels.class",
            SHADED + "org/apache/orc/OrcFile.class",
            SHADED + "org/apache/orc/storage/ql/exec/vector/VectorizedRowBatch.class")
        .noneMatch(entry -> entry.startsWith("org/apache/orc/") || entry.startsWith("org/threeten/"))
        .noneMatch(entry -> entry.startsWith("org/apache/iceberg/parquet/"));
  }

  @Test
  void holdsNoSparkScalaHadoopOrUnrelocatedThirdPartyClasses() {
    List<String> forbidden =
        List.of(
            "org/apache/spark/", "scala/", "org/apache/hadoop/", "org/slf4j/",
            "com/github/benmanes/", "org/apache/hc/", "org/apache/http/", "dev/failsafe/",
            "org/reactivestreams/", "org/apache/parquet/", "shaded/parquet/", "org/apache/avro/",
            "com/fasterxml/jackson/", "org/roaringbitmap/", "org/apache/commons/",
            "org/apache/orc/", "org/threeten/");
    for (String prefix : forbidden) {
      assertThat(entries).as("classes under %s", prefix).noneMatch(entry -> entry.startsWith(prefix));
    }
  }

  @Test
  void holdsNoClassThatSparksJarsHold() throws Exception {
    Set<String> classes =
        entries.stream().filter(entry -> entry.endsWith(".class")).collect(Collectors.toSet());
    Set<String> clashes = new TreeSet<>();
    for (Path jar : SparkDistribution.shared().jars()) {
      for (String entry : entries(jar)) {
        if (entry.endsWith(".class") && !entry.endsWith("module-info.class") && classes.contains(entry)) {
          clashes.add(entry + " (also in " + jar.getFileName() + ")");
        }
      }
    }
    assertThat(clashes).isEmpty();
  }

  @Test
  void everyReferenceToARelocatedClassFindsItInTheJar() throws IOException {
    Set<String> missing = new TreeSet<>();
    try (ZipFile jar = new ZipFile(Settings.runtimeJar().toFile())) {
      Enumeration<? extends ZipEntry> all = jar.entries();
      while (all.hasMoreElements()) {
        ZipEntry entry = all.nextElement();
        if (!entry.getName().endsWith(".class") || entry.getName().contains("module-info")) {
          continue;
        }
        String source = entry.getName();
        try (InputStream in = jar.getInputStream(entry)) {
          Remapper collect =
              new Remapper() {
                @Override
                public String map(String internalName) {
                  if (internalName.startsWith(SHADED) && !entries.contains(internalName + ".class")) {
                    missing.add(internalName + " <- " + source);
                  }
                  return internalName;
                }
              };
          new ClassReader(in).accept(new ClassRemapper(new ClassNode(), collect), 0);
        }
      }
    }
    assertThat(missing).isEmpty();
  }

  @Test
  void serviceFilesOfAllBundledLibrariesAreMerged() throws IOException {
    assertThat(service("org.apache.spark.sql.sources.DataSourceRegister"))
        .contains("io.floe.spark.FloeDataSource");
    assertThat(service("software.amazon.awssdk.http.SdkHttpService"))
        .contains(
            "software.amazon.awssdk.http.apache.ApacheSdkHttpService",
            "software.amazon.awssdk.http.urlconnection.UrlConnectionSdkHttpService");
  }

  // helpers

  private static List<String> service(String name) throws IOException {
    try (ZipFile jar = new ZipFile(Settings.runtimeJar().toFile())) {
      ZipEntry entry = jar.getEntry("META-INF/services/" + name);
      assertThat(entry).as("service file %s", name).isNotNull();
      try (InputStream in = jar.getInputStream(entry)) {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8)
            .lines()
            .map(String::trim)
            .filter(line -> !line.isEmpty() && !line.startsWith("#"))
            .collect(Collectors.toList());
      }
    }
  }

  private static Set<String> entries(Path jar) throws IOException {
    Set<String> names = new TreeSet<>();
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      Enumeration<? extends ZipEntry> all = zip.entries();
      while (all.hasMoreElements()) {
        names.add(all.nextElement().getName());
      }
    }
    return names;
  }
}
