// %% [markdown]
//x without a space
  // an indented line

// %% [parameters]
k := 1   
	
// %%
fmt.Println(k)