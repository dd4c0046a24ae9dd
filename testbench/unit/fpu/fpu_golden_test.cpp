// placeholder until golden vectors exist
