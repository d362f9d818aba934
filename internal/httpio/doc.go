// Package httpio is an iceberg-go FileIO (io.IO) that reads http:// and
// https:// objects with HTTP Range requests, so that a Parquet reader can
// learn a remote file's size and then read its footer and the column chunks
// it needs without downloading the rest.
//
// Open learns the size with a HEAD request (or, when HEAD is refused, a
// ranged GET of bytes=0-0) and pins the object by its ETag or Last-Modified.
// Each ReadAt is one GET for exactly the bytes asked, clipped to the size.
//
// Limits, on purpose:
//   - Read-only: Remove fails with ErrReadOnly and there is no Create.
//   - Names are absolute http or https URLs, not fs.ValidPath paths; local
//     paths, file:// and object-store schemes belong to other FileIOs.
//   - The server must honour single byte ranges with 206 and an exact
//     Content-Range. One that answers 200 with the whole object is refused,
//     and its body is never read.
//   - A change of the object between requests (ETag, Last-Modified or size)
//     fails the read instead of mixing two versions; an object served with
//     neither ETag nor Last-Modified is pinned by its size only.
//   - No cache, read-ahead, coalescing or retries: each ReadAt is one
//     request, so callers should read in chunks of a useful size.
//   - Every request is bounded: a header timeout, a whole-request timeout,
//     and a minimum transfer rate checked over each window of a body, so a
//     server that stalls or trickles fails within about one window instead
//     of hanging the reader.
package httpio
