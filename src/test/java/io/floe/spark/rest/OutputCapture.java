package io.floe.spark.rest;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * Captures every log event that reaches the root logger while open, as "logger LEVEL message
 * [throwable]" lines; the given loggers are turned up to the given levels and, while open, write to
 * this capture only (not to the console). Everything is restored on close.
 */
final class OutputCapture extends AbstractAppender implements AutoCloseable {
  private final List<String> lines = new CopyOnWriteArrayList<>();
  private final List<Restore> restores = new ArrayList<>();
  private final List<String> addedLoggers = new ArrayList<>();
  private final LoggerContext context;

  private record Restore(LoggerConfig logger, Level level, boolean additive) {}

  OutputCapture(Map<String, Level> raised) {
    super("sweep-" + UUID.randomUUID(), null, null, true, Property.EMPTY_ARRAY);
    this.context = (LoggerContext) LogManager.getContext(false);
    start();
    Configuration config = context.getConfiguration();
    raised.forEach(
        (name, level) -> {
          LoggerConfig existing = config.getLoggers().get(name);
          if (existing != null) {
            restores.add(new Restore(existing, existing.getLevel(), existing.isAdditive()));
            existing.setLevel(level);
            existing.setAdditive(false);
            existing.addAppender(this, Level.ALL, null);
          } else {
            LoggerConfig added = new LoggerConfig(name, level, false);
            added.addAppender(this, Level.ALL, null);
            config.addLogger(name, added);
            addedLoggers.add(name);
          }
        });
    config.getRootLogger().addAppender(this, Level.ALL, null);
    context.updateLoggers();
  }

  @Override
  public void append(LogEvent event) {
    StringBuilder line =
        new StringBuilder(event.getLoggerName())
            .append(' ')
            .append(event.getLevel())
            .append(' ')
            .append(event.getMessage().getFormattedMessage());
    if (event.getThrown() != null) {
      line.append(' ').append(SecretSweepTest.stackTrace(event.getThrown()));
    }
    lines.add(line.toString());
  }

  /** The captured lines of loggers whose names start with one of the prefixes. */
  List<String> linesOf(String... prefixes) {
    return lines.stream()
        .filter(line -> java.util.Arrays.stream(prefixes).anyMatch(line::startsWith))
        .toList();
  }

  List<String> lines() {
    return List.copyOf(lines);
  }

  @Override
  public void close() {
    Configuration config = context.getConfiguration();
    config.getRootLogger().removeAppender(getName());
    for (Restore restore : restores) {
      restore.logger().removeAppender(getName());
      restore.logger().setLevel(restore.level());
      restore.logger().setAdditive(restore.additive());
    }
    addedLoggers.forEach(config::removeLogger);
    context.updateLoggers();
    stop();
  }
}
