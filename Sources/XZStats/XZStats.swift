// XZStats layer.
