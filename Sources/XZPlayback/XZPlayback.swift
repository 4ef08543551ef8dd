// XZPlayback layer.
