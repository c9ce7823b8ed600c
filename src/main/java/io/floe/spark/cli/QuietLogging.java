package io.floe.spark.cli;

import java.util.List;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.ConsoleAppender;
import org.apache.logging.log4j.core.config.builder.api.ConfigurationBuilder;
import org.apache.logging.log4j.core.config.builder.api.ConfigurationBuilderFactory;
import org.apache.logging.log4j.core.config.builder.impl.BuiltConfiguration;

/**
 * Logging for {@code floe-sql}: warnings and errors only, on standard error, so that standard output
 * holds nothing but results. Left alone when the user has a log4j2 configuration: a {@code
 * -Dlog4j2.configurationFile=...} or a {@code log4j2.properties} (or {@code .xml}, ...) on the
 * classpath, as a Spark distribution's {@code conf} folder provides.
 *
 * <p>Under {@code spark-submit} Spark has set up its own logging before {@code main} runs and sets
 * it up again when the session starts, so the session's log level is lowered after it starts too.
 */
final class QuietLogging {
  private static final List<String> CONFIGURATION_PROPERTIES =
      List.of("log4j2.configurationFile", "log4j.configurationFile");
  private static final List<String> CONFIGURATION_RESOURCES =
      List.of(
          "log4j2-test.properties", "log4j2-test.xml", "log4j2-test.yaml", "log4j2-test.json",
          "log4j2.properties", "log4j2.xml", "log4j2.yaml", "log4j2.yml", "log4j2.json");

  private QuietLogging() {}

  /**
   * Configures quiet logging, before the session starts.
   *
   * @return false when the user's configuration is left in place
   */
  static boolean configure() {
    if (userConfigured()) {
      return false;
    }
    // the context Spark's classes log to: that of the class loader log4j itself came from, which
    // under spark-submit is not the loader of this class
    LoggerContext context =
        (LoggerContext) LogManager.getContext(LogManager.class.getClassLoader(), false);
    ConfigurationBuilder<BuiltConfiguration> builder =
        ConfigurationBuilderFactory.newConfigurationBuilder();
    builder.setConfigurationName("floe-sql");
    builder.setLoggerContext(context);
    builder.add(
        builder
            .newAppender("stderr", "Console")
            .addAttribute("target", ConsoleAppender.Target.SYSTEM_ERR)
            .add(
                builder
                    .newLayout("PatternLayout")
                    .addAttribute("pattern", "%d{HH:mm:ss} %p %c{1}: %m%n")));
    builder.add(builder.newRootLogger(Level.WARN).add(builder.newAppenderRef("stderr")));
    // says on every start that Hadoop's optional native library is absent, which changes nothing here
    builder.add(builder.newLogger("org.apache.hadoop.util.NativeCodeLoader", Level.ERROR));
    context.reconfigure(builder.build());
    return true;
  }

  private static boolean userConfigured() {
    for (String property : CONFIGURATION_PROPERTIES) {
      if (System.getProperty(property) != null) {
        return true;
      }
    }
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    if (loader == null) {
      loader = QuietLogging.class.getClassLoader();
    }
    for (String resource : CONFIGURATION_RESOURCES) {
      if (loader.getResource(resource) != null) {
        return true;
      }
    }
    return false;
  }
}
