package io.floe.spark.commit;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;

/** Collects what one class logs, as "LEVEL message" lines, while it is open. */
final class LogCapture extends AbstractAppender implements AutoCloseable {
  private final List<String> lines = new CopyOnWriteArrayList<>();
  private final Logger logger;

  LogCapture(Class<?> source) {
    super("capture-" + UUID.randomUUID(), null, null, true, Property.EMPTY_ARRAY);
    this.logger = (Logger) LogManager.getLogger(source);
    start();
    logger.addAppender(this);
  }

  @Override
  public void append(LogEvent event) {
    lines.add(event.getLevel() + " " + event.getMessage().getFormattedMessage());
  }

  /** The lines logged at the level, in order. */
  List<String> at(Level level) {
    String prefix = level.name() + " ";
    return lines.stream().filter(line -> line.startsWith(prefix)).map(line -> line.substring(prefix.length())).toList();
  }

  @Override
  public void close() {
    logger.removeAppender(this);
    stop();
  }
}
