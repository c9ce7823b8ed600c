package io.floe.spark.parquet;

/**
 * The reusable arrays of one input partition's Parquet reads, shared by the files it reads one
 * after another (and by the one a prefetch thread opens meanwhile): the arrays of decompressed
 * pages, and Parquet's row-group buffers.
 *
 * <p>Shared across files, a partition allocates its page arrays and row-group buffers about once
 * instead of once per file; each pool keeps at most {@link PageBuffers#MAX_FREE} free arrays, so
 * what it holds between files is bounded by what one file's reading needed at once.
 *
 * @param pages the arrays of decompressed pages
 * @param rowGroups Parquet's buffers for footers and row-group chunks
 */
public record ReadBuffers(PageBuffers pages, ReusingHeapAllocator rowGroups) {
  /** Empty pools, for one input partition. */
  public static ReadBuffers create() {
    return new ReadBuffers(new PageBuffers(), new ReusingHeapAllocator());
  }
}
