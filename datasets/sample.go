package datasets

import (
	"embed"
	"io/fs"
)

//go:embed sampledata
var sampleFS embed.FS

// SampleSource is the Dataset.Source of the bundled sample.
const SampleSource = "embedded:sample"

// SampleFS returns the bundled sample's files (README.md and the CloneMem
// persona files *_benchmark_en.json and *_benchmark_zh.json) at the root.
func SampleFS() fs.FS {
	sub, err := fs.Sub(sampleFS, "sampledata")
	if err != nil {
		panic("datasets: sample: " + err.Error()) // the embed pattern guarantees the directory
	}
	return sub
}

// Sample loads the bundled sample: every *.json file of the embedded
// sampledata directory as one CloneMem dataset named "sample", with Source
// "embedded:sample". It works offline from any directory.
func Sample() (*Dataset, error) {
	d, err := LoadFormatFS(SampleFS(), ".", SampleSource, FormatCloneMem)
	if err != nil {
		return nil, err
	}
	d.Name = "sample"
	return d, nil
}

// Open loads the dataset at path with Load, or the bundled sample when
// path is "" or "sample" (the notebooks' data parameter).
func Open(path string) (*Dataset, error) {
	if path == "" || path == "sample" {
		return Sample()
	}
	return Load(path)
}
