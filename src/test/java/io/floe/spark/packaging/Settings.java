package io.floe.spark.packaging;

import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * What the packaging tests know about the build that runs them, from the system properties the
 * Failsafe configuration in {@code pom.xml} sets: the packaged jars and POM, the project's
 * coordinates, the local Maven repository (a dependency cache only) and Spark's module flags.
 */
final class Settings {
  private Settings() {}

  static Path buildDir() {
    return Paths.get(required("floe.it.buildDir"));
  }

  static String groupId() {
    return required("floe.it.groupId");
  }

  static String artifactId() {
    return required("floe.it.artifactId");
  }

  static String version() {
    return required("floe.it.version");
  }

  /** The thin jar, the artifact {@code --packages} resolves. */
  static Path thinJar() {
    return Paths.get(required("floe.it.thinJar"));
  }

  /** The shaded jar with classifier {@code runtime}, for {@code --jars}. */
  static Path runtimeJar() {
    return Paths.get(required("floe.it.runtimeJar"));
  }

  /** The POM Maven installs next to the thin jar. */
  static Path pom() {
    return Paths.get(required("floe.it.pom"));
  }

  static String localRepository() {
    return required("floe.it.localRepository");
  }

  static String maven() {
    return required("floe.it.maven");
  }

  static String sparkVersion() {
    return required("floe.it.sparkVersion");
  }

  static String scalaBinaryVersion() {
    return required("floe.it.scalaBinaryVersion");
  }

  static String dependencyPluginVersion() {
    return required("floe.it.dependencyPluginVersion");
  }

  static String sparkJvmFlags() {
    return required("floe.it.sparkJvmFlags");
  }

  static String required(String key) {
    String value = System.getProperty(key);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException(
          "Cannot run the packaging tests: system property " + key + " is not set; run them with"
              + " mvn verify, which packages the jars and sets it");
    }
    return value;
  }
}
