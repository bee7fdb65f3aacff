// Package statsfile owns the bytes of the project's statistics files
// (.scnstats): the container (magic, format version, header length, the
// JSON Header, the embedded recipe's bytes, the sums' sections, the
// checksums), written and read a block at a time, with every size checked
// against the header (and the file's size, when known) before anything
// large is allocated, and a reader that can leave the largest section, G,
// unread until it is needed (GramAt). It knows nothing of statistics'
// math nor of a model: package scn maps its Stats to the sections and back
// (stats_format.go at the root), reads the recipe with its model-file
// reader and checks the sums' values. It imports the standard library and
// internal/bigmem (the sums' allocation) only, never package scn (the
// compiler refuses the cycle).
//
// Statistics files, little-endian. Format version 1 (no factor):
//
//	offset  size  content
//	0       8     magic "2DSCNSTA"
//	8       4     format version (uint32), 1
//	12      4     header length H (uint32), at most 1 MiB
//	16      H     header: UTF-8 JSON (Header): images, outputs, class
//	              names and counts, nodes, the recipe's length R
//	16+H    R     the recipe: a model file (its own magic and checksum)
//	        ...   G: L x L float64, H^T T: L x m float64, T^T T: m x m float64
//	end-4   4     CRC-32 (Castagnoli) of every byte before it
//
// so a file takes 20 + H + R + 8 (L^2 + L m + m^2) bytes. Version 2 (the
// statistics with their Factor, Stats.Factor not nil) checks each section
// on its own, so that a reader can skip G (OpenStats):
//
//	0       16+H+R  as version 1 (version 2; the header's "factor" holds
//	                the factor's images N_f and ridge)
//	        4       CRC-32 of the bytes before it
//	        8 L^2   G, then 4: CRC-32 of G's bytes
//	        8 (L m + m^2)  H^T T and T^T T, then 4: their CRC-32
//	        4 L (L+1)      the factor's lower triangle by rows (row i:
//	                       F[i][0..i]), then 4: its CRC-32
//
// 32 + H + R + 8 (L^2 + L m + m^2) + 4 L (L + 1) bytes. Statistics
// without a factor are written as version 1, as before.
package statsfile
