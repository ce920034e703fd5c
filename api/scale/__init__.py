"""Many photos: resumable batches on local worker processes (`batch`) or a Dask cluster
(`cluster`), with the thread limits that keep workers from starving each other (`threads`).
"""
