package jakarta.servlet;

/**
 * The marker interface Servlet 5 had and Servlet 6 removed, declared again for the test classpath
 * only. Tests run Servlet 6 (Jetty 12 ee10 under the REST catalog server and inside S3Proxy need
 * it), while Spark's own Jetty 11 still asks, for every servlet it registers (metrics, even with the
 * UI off), whether the servlet implements this interface. No class implements it.
 */
public interface SingleThreadModel {}
