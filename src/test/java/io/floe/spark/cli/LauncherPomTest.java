package io.floe.spark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * launcher/pom.xml is a graph of its own and so repeats a few versions of pom.xml: they must agree,
 * or what users run is not what the tests test.
 */
class LauncherPomTest {
  private static final Path ROOT = Paths.get(System.getProperty("user.dir"));

  @Test
  void launcherNamesTheProjectsVersions() throws Exception {
    String project = Files.readString(ROOT.resolve("pom.xml"));
    String launcher = Files.readString(ROOT.resolve("launcher/pom.xml"));

    for (String property :
        new String[] {
          "spark.version", "scala.binary.version", "sqlite.version", "dependency.plugin.version", "orc.version"}) {
      assertThat(tag(launcher, property)).as(property).isEqualTo(tag(project, property));
    }
    assertThat(tag(launcher, "version")).as("version").isEqualTo(tag(project, "version"));
    assertThat(block(launcher, "dependencyManagement").replaceAll("(?s)<!--.*?-->", ""))
        .as("dependencyManagement")
        .isEqualTo(block(project, "dependencyManagement").replaceAll("(?s)<!--.*?-->", ""));
  }

  private static String tag(String pom, String name) {
    Matcher matcher = Pattern.compile("<" + Pattern.quote(name) + ">([^<]*)</").matcher(pom);
    assertThat(matcher.find()).as("<%s> in a pom", name).isTrue();
    return matcher.group(1);
  }

  private static String block(String pom, String name) {
    int start = pom.indexOf("<" + name + ">");
    int end = pom.indexOf("</" + name + ">");
    assertThat(start).as("<%s> in a pom", name).isNotNegative();
    return pom.substring(start, end);
  }
}
