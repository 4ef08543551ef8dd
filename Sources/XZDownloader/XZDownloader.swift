// XZDownloader layer.
