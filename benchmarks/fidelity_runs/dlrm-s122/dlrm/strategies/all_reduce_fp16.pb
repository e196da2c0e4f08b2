
search-6a53538c15e4$
dlrm/ad_embedding/embeddings:0&
 dlrm/user_embedding/embeddings:0&
 dlrm/site_embedding/embeddings:0
dlrm/bottom1/kernel:0
dlrm/bottom1/bias:0
dlrm/bottom2/kernel:0
dlrm/bottom2/bias:0
dlrm/top1/kernel:0
dlrm/top1/bias:0
dlrm/top2/kernel:0
dlrm/top2/bias:0
dlrm/click/kernel:0
dlrm/click/bias:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search